package io.vte.engine.impl.rail;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The backlog of one rail and how fast it drains: the bytes of slices routed to it and not yet
 * done, and a decayed estimate of the time a byte takes while the rail is busy, measured between
 * its completions. A slice's expected finish time on the rail is {@code (outstanding + length) x
 * nanosPerByte}: selection picks the rail where that is least, so a slow rail gets slices in
 * proportion to its rate and no request waits for a slow quarter.
 *
 * <p>{@link #acquire} (submitter threads) and {@link #release} (the rail's owner, or a closing
 * engine) change the backlog atomically, one increment and one decrement per routed slice. The rate
 * is written only from the rail's completions, which all run on the one owner of the rail's peer
 * NIC path; it is an estimate, so a rare lost update is harmless. Lock-free, nothing allocated.
 */
final class RailLoad {

  /** Weight of a new window's rate in the estimate. */
  private static final double WEIGHT = 0.25;

  /** How many times slower than the estimate one window may count. */
  private static final double MAX_STEP = 4;

  /**
   * Idle this long, a rail's estimate no longer counts: selection takes it to be as fast as the
   * fastest.
   */
  static final long STALE_NANOS = 100_000_000L;

  private final long windowNanos;
  private final AtomicLong outstanding = new AtomicLong();
  private final AtomicLong moved = new AtomicLong();

  /** When the rail last went from idle to busy (its next completion starts the clock). */
  private volatile long busySince;

  /** Up to when the busy time has been counted: the last completion or failure. */
  private volatile long countedUntil;

  private long windowBytes;
  private long windowBusyNanos;
  private volatile double nanosPerByte;

  /**
   * @param windowNanos busy time a rate sample spans (completions come in bursts: one alone says
   *     little)
   */
  RailLoad(long windowNanos) {
    this.windowNanos = windowNanos;
  }

  /**
   * A slice was routed to the rail.
   *
   * @param bytes its length
   * @param now nanosecond clock
   */
  void acquire(int bytes, long now) {
    if (outstanding.getAndAdd(bytes) == 0) {
      busySince = now;
    }
  }

  /**
   * A slice routed to the rail ended (done, failed, flushed, dropped or never sent): exactly once
   * per {@link #acquire}.
   *
   * @param bytes its length
   * @param moved true when it completed, so that the bytes count towards the rate
   * @param now nanosecond clock
   */
  void release(int bytes, boolean moved, long now) {
    long since = countedUntil;
    countedUntil = now;
    outstanding.addAndGet(-bytes);
    // The first completion of a busy period only starts the clock: what came before it was latency
    // (a handshake,
    // the pipeline filling), not the rate.
    if (!moved) {
      return;
    }
    this.moved.addAndGet(bytes);
    if (busySince - since > 0) {
      if (busySince - since > STALE_NANOS) {
        // Idle that long, it is measured afresh.
        nanosPerByte = 0;
        windowBytes = 0;
        windowBusyNanos = 0;
      }
      return;
    }
    windowBytes += bytes;
    windowBusyNanos += now - since;
    if (windowBusyNanos >= windowNanos) {
      double sample = (double) windowBusyNanos / windowBytes;
      double old = nanosPerByte;
      // One stall (a retransmission, a new endpoint's handshake) moves the estimate at most
      // MAX_STEP times.
      nanosPerByte = old == 0 ? sample : old + WEIGHT * (Math.min(sample, old * MAX_STEP) - old);
      windowBytes = 0;
      windowBusyNanos = 0;
    }
  }

  /**
   * @return bytes routed to the rail and not yet done
   */
  long outstanding() {
    return outstanding.get();
  }

  /**
   * @return bytes of the slices the rail completed so far
   */
  long moved() {
    return moved.get();
  }

  /**
   * @return the estimated nanoseconds per byte while busy, 0 while nothing was measured
   */
  double nanosPerByte() {
    return nanosPerByte;
  }

  /**
   * @param now nanosecond clock
   * @return {@link #nanosPerByte()}, or 0 (unknown) when the rail has been idle for {@link
   *     #STALE_NANOS}: a rail that once looked slow (a stall, a NIC that was down) gets slices
   *     again and is measured anew
   */
  double currentNanosPerByte(long now) {
    return outstanding.get() == 0 && now - countedUntil > STALE_NANOS ? 0 : nanosPerByte;
  }
}
