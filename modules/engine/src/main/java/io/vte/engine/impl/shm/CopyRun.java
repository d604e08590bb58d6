package io.vte.engine.impl.shm;

import io.vte.engine.impl.rail.Slice;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;

/**
 * The slices a copier thread moves with one memory copy: queued slices that continue each other in
 * local and in remote memory, into the same target with the same opcode and without an integrity
 * check (a checked slice keeps a CRC of its own), up to {@link #MAX_BYTES}. The copy then costs one
 * lock check and one long copy instead of one per 64 KiB slice, and the hardware prefetchers see
 * one stream. A queued slice that does not continue the run starts the next one. Confined to its
 * copier thread.
 */
final class CopyRun {

  /** Bytes one run copies at most. */
  static final int MAX_BYTES = 1 << 20;

  /** Slices one run holds at most. */
  static final int MAX_SLICES = 64;

  private final Slice[] slices = new Slice[MAX_SLICES];
  private int count;
  private int reported;
  private long bytes;
  private Slice next;

  /**
   * Gathers the next run: the slice left over from the last run, else the queue's head (waiting for
   * one, after {@code beforeWait}, while the queue is empty), then the queued slices that continue
   * it.
   *
   * @param queue the rail's queue
   * @param beforeWait run before this thread waits for work
   * @param stop the queue's stop marker: a run of it alone is returned at once
   */
  void take(BlockingQueue<Slice> queue, Runnable beforeWait, Slice stop)
      throws InterruptedException {
    Slice first = next;
    next = null;
    if (first == null) {
      first = queue.poll();
      if (first == null) {
        beforeWait.run();
        first = queue.take();
      }
    }
    slices[0] = first;
    count = 1;
    bytes = first.length();
    if (first == stop) {
      return;
    }
    Slice last = first;
    while (count < MAX_SLICES && bytes < MAX_BYTES && !last.checksIntegrity()) {
      Slice s = queue.poll();
      if (s == null) {
        return;
      }
      if (s == stop || !continues(last, s) || bytes + s.length() > MAX_BYTES) {
        next = s;
        return;
      }
      slices[count++] = s;
      bytes += s.length();
      last = s;
    }
  }

  private static boolean continues(Slice last, Slice s) {
    return s.rkey() == last.rkey()
        && s.opcode() == last.opcode()
        && !s.checksIntegrity()
        && s.localAddress() == last.localAddress() + last.length()
        && s.remoteAddress() == last.remoteAddress() + last.length();
  }

  /**
   * @return the slices in this run, at least 1
   */
  int count() {
    return count;
  }

  /**
   * @param i index, below {@link #count()}
   * @return that slice
   */
  Slice get(int i) {
    return slices[i];
  }

  /**
   * @return the bytes of all its slices
   */
  int bytes() {
    return (int) bytes;
  }

  /**
   * Reports the run's next unreported slice (slices are reported in run order).
   *
   * @param status its status
   * @param cause its failure, or null
   */
  void reportNext(int status, Throwable cause) {
    Slice s = slices[reported++];
    s.callback().onSliceDone(s, status, cause);
  }

  /**
   * @return true while some slice of the run has not been reported
   */
  boolean unreported() {
    return reported < count;
  }

  /** Forgets the slices (they belong to their callers again). */
  void clear() {
    Arrays.fill(slices, 0, count, null);
    count = 0;
    reported = 0;
    bytes = 0;
  }
}
