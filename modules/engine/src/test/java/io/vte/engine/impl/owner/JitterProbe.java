package io.vte.engine.impl.owner;

import java.util.concurrent.locks.LockSupport;

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

  JitterProbe() {
    thread = new Thread(this::run, "jitter-probe");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    while (running) {
      long start = System.nanoTime();
      LockSupport.parkNanos(PARK_NANOS);
      long late = System.nanoTime() - start - PARK_NANOS;
      if (late > maxLateNanos) {
        maxLateNanos = late;
      }
    }
  }

  /**
   * @return the longest oversleep seen so far, in nanoseconds
   */
  long maxLateNanos() {
    return maxLateNanos;
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
