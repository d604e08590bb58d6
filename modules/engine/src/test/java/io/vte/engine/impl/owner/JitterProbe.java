package io.vte.engine.impl.owner;

import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Measures how late a plain thread wakes from 1 ms parks: the scheduling stalls the machine itself
 * imposes (load from other processes, GC). Lets poll-gap assertions tell an owner that stalls from
 * a machine that stalls everyone.
 */
final class JitterProbe implements AutoCloseable {

  private static final long PARK_NANOS = 1_000_000;

  private final Thread thread;
  private volatile boolean running = true;
  private volatile long maxLateNanos;

  /** Every oversleep (the probe's thread writes; read once {@link #close()} has joined it). */
  private final Histogram late = new Histogram(3);

  JitterProbe() {
    thread = new Thread(this::run, "jitter-probe");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (running) {
      long start = System.nanoTime();
      LockSupport.parkNanos(PARK_NANOS);
      long lateNanos = Math.max(0, System.nanoTime() - start - PARK_NANOS);
      late.recordValue(lateNanos);
      if (lateNanos > maxLateNanos) {
        maxLateNanos = lateNanos;
      }
    }
  }

  /**
   * @return the longest oversleep seen so far, in nanoseconds
   */
  long maxLateNanos() {
    return maxLateNanos;
  }

  /**
   * @param percentile 0..100
   * @return the oversleep at that percentile, in nanoseconds; only after {@link #close()}
   */
  long lateNanosAtPercentile(double percentile) {
    return late.getValueAtPercentile(percentile);
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the jitter probe to end", e);
    }
  }
}
