package io.vte.engine.impl.submit;

import io.vertx.core.internal.ContextInternal;
import io.vte.api.TransferBatch;
import io.vte.api.TransferRequest;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.segment.LocalBuffer;

/**
 * The records of a request submitted alone that fits in one slice (its {@link BatchTracker}, its
 * {@link TransferTracker} and that tracker's one {@link Slice}), run again for the next such
 * request. After a run in which the request completed on its own slice the records go back to their
 * {@link SubmitRecordPool}; after a cancel, a deadline, a failure or a redirect a straggler may
 * still hold them, so they are left to it and to the garbage collector. The caller holds a {@link
 * SubmitHandle} of its run, never the records.
 */
public final class SubmitRecord implements RecordKeeper {

  private final SubmitRecordPool pool;
  private final BatchTracker batch;
  private final TransferTracker[] trackers;

  /** The first slot of the pool region this record goes back to. */
  int home;

  /**
   * Makes records for a first request (they are bound to it by {@link #run}).
   *
   * @param submitter the engine's submitter: its contexts, in-flight list and services
   * @param request a validated request that fits in one slice
   * @param local its local buffer
   */
  SubmitRecord(
      SubmitRecordPool pool,
      TransferSubmitter submitter,
      TransferRequest request,
      LocalBuffer local) {
    this.pool = pool;
    this.home = pool.homeOfCaller();
    this.batch = new BatchTracker(submitter.callers, submitter.settled, this);
    TransferTracker t = new TransferTracker(submitter.services(), batch, request, local);
    t.keepSlices();
    this.trackers = new TransferTracker[] {t};
    pool.countMade();
  }

  /**
   * Binds the records to a request for a new run (before the run is in flight).
   *
   * @param caller the submitter's context, where the result completes
   * @param request a validated request that fits in one slice
   * @param local its local buffer
   * @return the caller's handle of this run
   */
  TransferBatch run(ContextInternal caller, TransferRequest request, LocalBuffer local) {
    batch.reuse(caller);
    trackers[0].rebind(request, local);
    return new SubmitHandle(batch, batch.generation(), batch.result());
  }

  /**
   * @return the batch tracker of the run
   */
  BatchTracker batch() {
    return batch;
  }

  /**
   * @return the run's one tracker, in a reused array
   */
  TransferTracker[] trackers() {
    return trackers;
  }

  @Override
  public void release(boolean reusable) {
    if (reusable) {
      pool.give(this);
    }
  }
}
