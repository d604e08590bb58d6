package io.vte.engine.impl.submit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The free {@link ReusedRecords} of requests submitted alone, each a batch of one request that fits
 * in one slice, so that a small request submitted alone allocates no records of its own. Slots in
 * regions of {@value #REGION}, one region per submitting thread (threads beyond the regions share):
 * a record is taken from its submitter's region and given back there, whichever thread completes
 * it, so a thread outside Vert.x, whose results complete on an owner's thread, finds its records
 * again. A slot is claimed with one compare-and-set, and a record is in one slot at most, so a
 * record is never handed out twice. A record given back to a full region is left to the garbage
 * collector. Thread-safe, lock-free.
 */
final class SubmitRecordPool {

  /** Slots per region: the records one thread keeps. */
  static final int REGION = 16;

  private final AtomicReferenceArray<ReusedRecords> slots;
  private final int regionMask;
  private final AtomicInteger made = new AtomicInteger();

  /**
   * @param regions regions, a power of two
   */
  SubmitRecordPool(int regions) {
    if (Integer.bitCount(regions) != 1) {
      throw new IllegalArgumentException("regions must be a power of two, got " + regions);
    }
    this.slots = new AtomicReferenceArray<>(regions * REGION);
    this.regionMask = regions - 1;
  }

  /**
   * @return a free record of the calling thread's region, taken out of the pool, or null when that
   *     region has none
   */
  ReusedRecords take() {
    int home = homeOfCaller();
    for (int i = home; i < home + REGION; i++) {
      ReusedRecords r = slots.get(i);
      if (r != null && slots.compareAndSet(i, r, null)) {
        return r;
      }
    }
    return null;
  }

  /**
   * @return the first slot of the calling thread's region, the home of records made for it (they go
   *     back there and are taken from there only, by threads of that region)
   */
  int homeOfCaller() {
    return (int) (Thread.currentThread().getId() & regionMask) * REGION;
  }

  /** Counts records made: for a submitter whose region had none free, or fresh after a retire. */
  void countMade() {
    made.incrementAndGet();
  }

  /**
   * Puts records back in their home region after their run; drops them when the region is full.
   *
   * @param r records taken or made for a run that has ended
   * @param home their region ({@link #homeOfCaller()} of the thread they were made for)
   */
  void give(ReusedRecords r, int home) {
    for (int i = home; i < home + REGION; i++) {
      if (slots.get(i) == null && slots.compareAndSet(i, null, r)) {
        return;
      }
    }
  }

  /**
   * @return records made so far (each run that found none free in its region made one, and each run
   *     after a retire)
   */
  int made() {
    return made.get();
  }
}
