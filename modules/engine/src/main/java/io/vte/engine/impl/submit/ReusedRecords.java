package io.vte.engine.impl.submit;

import io.vte.engine.impl.rail.Slice;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A batch's records (its {@link BatchTracker}, its {@link TransferTracker}s and their kept {@link
 * Slice}s) run again and again: the one reuse scheme of a request submitted alone ({@link
 * SubmitRecordPool}) and of a prepared transfer ({@link PreparedBatch}). A run starts with {@link
 * #run}; its result's completion hands the records back ({@link #release}) before the result's
 * callbacks. When a run ended with every request completed on its own slices, the next run reuses
 * them; after a cancel, a deadline, a failure or a redirect a slice may still be held by an owner,
 * a pending retry or a replacement tracker, so those records are retired (left to their stragglers)
 * and the next run makes fresh ones. One run at a time: whoever holds the records starts the next
 * run only after the last one handed them back.
 */
final class ReusedRecords {

  private final CallerContexts callers;
  private final Consumer<BatchTracker> settled;
  private final Consumer<ReusedRecords> released;
  private final Runnable made;

  /** The records' batch; read by a cancel from any thread. */
  private volatile BatchTracker batch;

  // Guarded by the run: written by run() and release() only.
  private TransferTracker[] trackers;
  private boolean retired;

  /**
   * Makes the first records.
   *
   * @param callers where runs' results complete
   * @param settled what a batch calls once settled
   * @param released takes the records back after each run
   * @param trackers makes the first trackers for a batch, their slices kept ({@link
   *     TransferTracker#keepSlices}) or kept before the first run
   * @param made counts each set of records made (the first and every fresh one)
   * @throws io.vte.api.VteException what {@code trackers} throws for bad input
   */
  ReusedRecords(
      CallerContexts callers,
      Consumer<BatchTracker> settled,
      Consumer<ReusedRecords> released,
      Function<BatchTracker, TransferTracker[]> trackers,
      Runnable made) {
    this.callers = callers;
    this.settled = settled;
    this.released = released;
    this.made = made;
    BatchTracker first = new BatchTracker(callers, settled, this);
    this.trackers = trackers.apply(first);
    this.batch = first;
    made.run();
  }

  /**
   * Makes the records ready for a new run on the caller's context: fresh ones when the last run
   * retired them. Only once the last run handed them back.
   *
   * @return the run's batch (its trackers are {@link #trackers()})
   */
  BatchTracker run() {
    if (retired) {
      BatchTracker fresh = new BatchTracker(callers, settled, this);
      TransferTracker[] copies = new TransferTracker[trackers.length];
      for (int i = 0; i < copies.length; i++) {
        copies[i] = trackers[i].copyFor(fresh);
      }
      trackers = copies;
      batch = fresh;
      retired = false;
      made.run();
    }
    BatchTracker b = batch;
    b.reuse(callers.current());
    for (TransferTracker t : trackers) {
      t.reuse();
    }
    return b;
  }

  /**
   * @return the batch of the last run (or of the first records)
   */
  BatchTracker batch() {
    return batch;
  }

  /**
   * @return the trackers of the last run (or the first records), in request order
   */
  TransferTracker[] trackers() {
    return trackers;
  }

  /**
   * Called once per run, when its result is about to complete (on the caller's context, or the
   * thread that completed it for a caller outside Vert.x).
   *
   * @param reusable every request completed on its own slices, so no slice of the run is held
   *     anywhere: the records may run again; otherwise they are retired
   */
  void release(boolean reusable) {
    if (!reusable) {
      retired = true;
    }
    released.accept(this);
  }
}
