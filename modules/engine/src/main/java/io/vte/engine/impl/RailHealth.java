package io.vte.engine.impl;

import io.vte.api.VteException;

/**
 * Error history of one rail: after {@code failuresToPause} consecutive penalizing failures it is paused
 * for a hold-down period; once that passes the next selection is a probe, and one more failure pauses
 * it again at once. A success clears it. It keeps the cause of its last failure, so that a transfer that
 * finds every rail paused can say why. Thread-safe.
 */
final class RailHealth {

  private int failures;
  private long pausedUntil;
  private long lastFailureAt;
  private VteException lastCause;

  synchronized boolean isUsable(long now) {
    return now - pausedUntil >= 0;
  }

  synchronized void onSuccess() {
    failures = 0;
  }

  synchronized void onFailure(long now, int failuresToPause, long holdDownNanos, VteException cause) {
    lastFailureAt = now;
    lastCause = cause;
    failures++;
    if (failures >= failuresToPause) {
      pausedUntil = now + holdDownNanos;
    }
  }

  /** @return when the last failure happened (meaningful only with a {@link #lastCause()}) */
  synchronized long lastFailureAt() {
    return lastFailureAt;
  }

  /** @return the cause of the last failure, or null when there was none */
  synchronized VteException lastCause() {
    return lastCause;
  }

  synchronized boolean hasFailures() {
    return failures > 0;
  }
}
