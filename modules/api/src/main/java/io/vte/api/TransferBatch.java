package io.vte.api;

import io.vertx.core.Future;

/**
 * A submitted batch of transfer requests, returned by {@link TransferEngine#submit(java.util.List,
 * TransferOptions)}: {@code TransferBatch batch = engine.submit(requests, new TransferOptions());
 * batch.result().onSuccess(...)}, or {@code batch.cancel()}.
 */
public interface TransferBatch {

  /**
   * @return completes once every request has a final status; fails only for bad input or a closed
   *     engine
   */
  Future<BatchResult> result();

  /**
   * Cancels the batch: slices not yet posted are abandoned, posted ones complete and are ignored,
   * and every unfinished request reports CANCELED. No effect on a finished batch.
   */
  void cancel();
}
