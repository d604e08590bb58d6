package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.TransferBatch;

/**
 * The caller's handle of one run of the {@link ReusedRecords} of a request submitted alone: its
 * result, and a cancel that acts on that run only, so a handle kept after its run ended never
 * touches the records' next run.
 */
final class SubmitHandle implements TransferBatch {

  private final BatchTracker records;
  private final int generation;
  private final Future<BatchResult> result;

  SubmitHandle(BatchTracker records, int generation, Future<BatchResult> result) {
    this.records = records;
    this.generation = generation;
    this.result = result;
  }

  @Override
  public Future<BatchResult> result() {
    return result;
  }

  @Override
  public void cancel() {
    records.cancel(generation);
  }
}
