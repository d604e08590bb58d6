package io.vte.engine.impl;

/**
 * Error history of one rail: after {@code failuresToPause} consecutive penalizing failures it is paused
 * for a hold-down period; once that passes the next selection is a probe, and one more failure pauses
 * it again at once. A success clears it. Thread-safe.
 */
final class RailHealth {

  private int failures;
  private long pausedUntil;

  synchronized boolean isUsable(long now) {
    return now - pausedUntil >= 0;
  }

  synchronized void onSuccess() {
    failures = 0;
  }

  synchronized void onFailure(long now, int failuresToPause, long holdDownNanos) {
    failures++;
    if (failures >= failuresToPause) {
      pausedUntil = now + holdDownNanos;
    }
  }

  synchronized boolean hasFailures() {
    return failures > 0;
  }
}
