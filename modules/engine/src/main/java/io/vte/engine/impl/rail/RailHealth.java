package io.vte.engine.impl.rail;

import io.vte.api.VteException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Error history of one rail, or of one device that several rails share: after {@code
 * failuresToPause} consecutive penalizing failures (or at once, see {@link #holdDown}) it is held
 * down for a hold-down period. Once that passes, a single probe may use it ({@link #tryUse}):
 * everyone else keeps away until the probe succeeds, which ends the hold-down, or fails, which
 * starts a new one. A probe that never reports back (its slice dropped unposted) is given up after
 * a probe window, and the next selection probes again. It keeps the cause of its last failure, so
 * that a transfer that finds every rail held down can say why. A peer device can also be held down
 * by the peer's own word ({@link #holdUntilReleased}, a pushed device state): then no hold-down
 * period ends it, only the peer's word that it is back ({@link #release}), after which a single
 * probe goes first as after any hold-down. Thread-safe and lock-free: selections read two volatile
 * fields when nothing is held down.
 */
final class RailHealth {

  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicLong heldUntil = new AtomicLong();

  /** Far enough ahead to never pass, near enough that {@code now + FOREVER} cannot overflow. */
  private static final long FOREVER = Long.MAX_VALUE / 4;

  private volatile boolean held;
  private volatile boolean heldByPeer;
  private volatile boolean probing;
  private volatile long lastFailureAt;
  private volatile VteException lastCause;

  /**
   * @param now nanosecond clock
   * @return true when not held down, or held down past its end (a probe may go)
   */
  boolean isUsable(long now) {
    return !held || now - heldUntil.get() >= 0;
  }

  /**
   * Claims the use of it for one slice: always granted when not held down; past the end of a
   * hold-down granted to one caller, the probe, whose outcome the others then wait for.
   *
   * @param now nanosecond clock
   * @param probeWindow how long the probe may take before another caller may probe
   * @return true when the caller may use it
   */
  boolean tryUse(long now, long probeWindow) {
    if (!held) {
      return true;
    }
    long until = heldUntil.get();
    if (now - until < 0 || !heldUntil.compareAndSet(until, now + probeWindow)) {
      return false;
    }
    probing = true;
    return true;
  }

  /**
   * @return true while held down and a probe of it is in flight (its outcome not yet reported)
   */
  boolean isProbing() {
    return held && probing;
  }

  /** Uses it although it is held down, because nothing else is left: counts as a probe. */
  void forceProbe() {
    probing = true;
  }

  /**
   * A slice succeeded on it: clears the failure count and ends a hold-down that is being probed.
   */
  void onSuccess() {
    if (failures.get() != 0) {
      failures.set(0);
    }
    if (held && probing) {
      probing = false;
      heldByPeer = false;
      held = false;
    }
  }

  /**
   * Counts one penalizing failure; the {@code failuresToPause}-th in a row (or a failed probe)
   * holds it down.
   *
   * @param now nanosecond clock
   * @param failuresToPause consecutive failures that hold it down
   * @param holdDownNanos how long it stays held down
   * @param cause what the failure means for a transfer
   */
  void onFailure(long now, int failuresToPause, long holdDownNanos, VteException cause) {
    if (failures.incrementAndGet() >= failuresToPause || held) {
      holdDown(now, holdDownNanos, cause);
    } else {
      record(now, cause);
    }
  }

  /**
   * Holds it down at once (a failure that implicates it for sure).
   *
   * @param now nanosecond clock
   * @param holdDownNanos how long it stays held down
   * @param cause what the failure means for a transfer
   */
  void holdDown(long now, long holdDownNanos, VteException cause) {
    record(now, cause);
    if (heldByPeer) {
      return; // only the peer's word that it is back ends this one
    }
    heldUntil.set(now + holdDownNanos);
    probing = false;
    held = true;
  }

  /**
   * Holds it down until {@link #release}: the peer said this device is down.
   *
   * @param now nanosecond clock
   * @param cause what the hold-down means for a transfer
   * @return true when it was not held down by the peer already
   */
  boolean holdUntilReleased(long now, VteException cause) {
    boolean fresh = !heldByPeer;
    heldByPeer = true;
    record(now, cause);
    heldUntil.set(now + FOREVER);
    probing = false;
    held = true;
    return fresh;
  }

  /**
   * Ends a hold-down by the peer's word: the next selection sends one probe, and the others wait
   * for its outcome, as after any hold-down.
   *
   * @param now nanosecond clock
   * @return true when it was held down by the peer
   */
  boolean release(long now) {
    if (!heldByPeer) {
      return false;
    }
    heldByPeer = false;
    probing = false;
    heldUntil.set(now);
    return true;
  }

  /**
   * @return true while held down by the peer's word ({@link #holdUntilReleased})
   */
  boolean isHeldByPeer() {
    return heldByPeer;
  }

  private void record(long now, VteException cause) {
    lastFailureAt = now;
    lastCause = cause;
  }

  /**
   * @return true while held down (its end may have passed: then it is waiting for a probe)
   */
  boolean isHeld() {
    return held;
  }

  /**
   * @return when the last failure happened (meaningful only with a {@link #lastCause()})
   */
  long lastFailureAt() {
    return lastFailureAt;
  }

  /**
   * @return the cause of the last failure, or null when there was none
   */
  VteException lastCause() {
    return lastCause;
  }
}
