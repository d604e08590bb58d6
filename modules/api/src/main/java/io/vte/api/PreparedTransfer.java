package io.vte.api;

import io.vertx.core.Future;
import java.util.List;

/**
 * A batch validated and resolved once, posted many times: a repeated pattern (the same pages of a
 * KV cache to the same peer, a parameter shard every step) pays validation and segment lookup at
 * {@link TransferEngine#prepare} only, and a post reuses the engine's records of the batch, so it
 * allocates little besides its result. Rails are still chosen at every post, so failover and health
 * work as for {@link TransferEngine#submit}.
 *
 * <p>A post runs with the deadline of the options given to {@code prepare}, counted from the post.
 * Posts may overlap: one that starts while an earlier one is still running (or whose records a
 * cancelled or failed post may still hold) runs as an ordinary submit of the same requests, so
 * overlapping posts are correct, only not allocation-free. Thread-safe.
 */
public interface PreparedTransfer {

  /**
   * Posts the batch.
   *
   * @return completes once every request has a final status, as {@link TransferBatch#result()};
   *     fails with ENGINE_CLOSED once the engine is closed. Posts that complete every request may
   *     give the same (immutable) result object.
   */
  Future<BatchResult> post();

  /**
   * Cancels the posts of this batch in flight now, as {@link TransferBatch#cancel()}: their
   * unfinished requests report CANCELED. No effect on posts that ended; a later post runs as usual.
   */
  void cancel();

  /**
   * @return the requests, in order, as given to {@code prepare}
   */
  List<TransferRequest> requests();
}
