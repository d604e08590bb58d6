package io.vte.engine.impl.submit;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The free {@link SubmitRecord}s of an engine, so that a small request submitted alone allocates no
 * records of its own. Slots in regions of {@value #REGION}, one region per submitting thread
 * (threads beyond the regions share): a record is taken from its submitter's region and given back
 * there, whichever thread completes it, so a thread outside Vert.x, whose results complete on an
 * owner's thread, finds its records again. A slot is claimed with one compare-and-set, and a record
 * is in one slot at most, so a record is never handed out twice. A record given back to a full
 * region is left to the garbage collector. Thread-safe, lock-free.
 */
final class SubmitRecordPool {

  /** Slots per region: the records one thread keeps. */
  static final int REGION = 16;

  private final AtomicReferenceArray<SubmitRecord> slots;
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
  SubmitRecord take() {
    int home = homeOfCaller();
    for (int i = home; i < home + REGION; i++) {
      SubmitRecord r = slots.get(i);
      if (r != null && slots.compareAndSet(i, r, null)) {
        r.home = home;
        return r;
      }
    }
    return null;
  }

  /**
   * @return the first slot of the calling thread's region, the home of a record made for it
   */
  int homeOfCaller() {
    return (int) (Thread.currentThread().getId() & regionMask) * REGION;
  }

  /** Counts a record made because its submitter's region had none free. */
  void countMade() {
    made.incrementAndGet();
  }

  /**
   * Puts a record that no run holds back in its home region; drops it when the region is full.
   *
   * @param r a record taken or made for a run that has ended
   */
  void give(SubmitRecord r) {
    int home = r.home;
    for (int i = home; i < home + REGION; i++) {
      if (slots.get(i) == null && slots.compareAndSet(i, null, r)) {
        return;
      }
    }
  }

  /**
   * @return records made so far (each run that found none free in its region made one)
   */
  int made() {
    return made.get();
  }
}
