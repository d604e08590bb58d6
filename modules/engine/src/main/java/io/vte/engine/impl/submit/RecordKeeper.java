package io.vte.engine.impl.submit;

import io.vte.engine.impl.rail.Slice;

/**
 * Who keeps a batch's records (its {@link BatchTracker}, {@link TransferTracker}s and their {@link
 * Slice}s) to run them again: a prepared transfer, or a pooled submit record. Told once per run,
 * when the run's result completes, before the result's callbacks.
 */
interface RecordKeeper {

  /**
   * The run ended and its result is about to complete (on the caller's context, or the thread that
   * completed it for a caller outside Vert.x).
   *
   * @param reusable every request completed on its own slices, so no slice of the run is held
   *     anywhere: the records may run again; otherwise a straggler may still hold them
   */
  void release(boolean reusable);
}
