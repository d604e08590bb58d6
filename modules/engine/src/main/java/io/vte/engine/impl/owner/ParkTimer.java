package io.vte.engine.impl.owner;

import io.vertx.core.Handler;
import java.util.function.LongSupplier;

/**
 * The wake-up timer of a parked owner: at most one pending, re-armed only when a sooner wake-up is
 * wanted. An owner with work in flight parks and is woken by its CQ many times a millisecond;
 * setting and cancelling a Vert.x timer each time cost a timer task, its map entry and two
 * scheduler calls per park. Keeping the pending timer instead costs at most one spare duty cycle
 * per timer period. Confined to the owner's event loop.
 */
final class ParkTimer {

  /** Sets and cancels one-shot timers ({@code Vertx::setTimer}, {@code Vertx::cancelTimer}). */
  interface Timers {
    /**
     * @param delayMs milliseconds until {@code fired} runs, at least 1
     * @param fired runs on the owner's context with the timer's ID
     * @return the timer's ID
     */
    long set(long delayMs, Handler<Long> fired);

    /**
     * @param id a timer {@link #set} returned
     * @return true when it was still pending
     */
    boolean cancel(long id);
  }

  private final Timers timers;
  private final LongSupplier nanoClock;
  private final Runnable onFire;
  private final Handler<Long> fired = this::fired;
  private long id = -1;
  private long dueNanos;

  /**
   * @param timers the owner's Vert.x timers
   * @param nanoClock monotonic nanoseconds ({@code System::nanoTime})
   * @param onFire what a firing timer runs, on the owner's context
   */
  ParkTimer(Timers timers, LongSupplier nanoClock, Runnable onFire) {
    this.timers = timers;
    this.nanoClock = nanoClock;
    this.onFire = onFire;
  }

  /**
   * Makes sure a wake-up comes within {@code delayMs}: keeps the pending timer when it fires no
   * later, else replaces it.
   *
   * @param delayMs at least 1 (Vert.x timer resolution)
   */
  void wakeWithin(long delayMs) {
    long due = nanoClock.getAsLong() + delayMs * 1_000_000L;
    if (id >= 0) {
      if (dueNanos - due <= 0) {
        return;
      }
      timers.cancel(id);
    }
    dueNanos = due;
    id = timers.set(delayMs, fired);
  }

  /** Cancels the pending timer, if any (the owner stops). */
  void cancel() {
    if (id >= 0) {
      timers.cancel(id);
      id = -1;
    }
  }

  /**
   * @return true while a timer is pending
   */
  boolean isPending() {
    return id >= 0;
  }

  private void fired(long firedId) {
    if (firedId != id) {
      return; // replaced, and its cancel came too late
    }
    id = -1;
    onFire.run();
  }
}
