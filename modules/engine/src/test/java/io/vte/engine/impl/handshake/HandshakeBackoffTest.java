package io.vte.engine.impl.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The backoff schedule of refused handshakes, computed directly. */
class HandshakeBackoffTest {

  private static final Duration FIRST = Duration.ofMillis(20);
  private static final Duration MAX = Duration.ofMillis(300);

  /** nextDouble() of 0: the shortest wait, half the cap. */
  private static final RandomGenerator LOWEST = () -> 0L;

  /** nextDouble() just below 1: the longest wait, the cap. */
  private static final RandomGenerator HIGHEST = () -> -1L;

  @Test
  void theCapDoublesPerFailedAttemptUpToTheMaximumWait() {
    HandshakeBackoff low = new HandshakeBackoff(FIRST, MAX, 8, LOWEST);
    HandshakeBackoff high = new HandshakeBackoff(FIRST, MAX, 8, HIGHEST);
    long[] caps = {20, 40, 80, 160, 300, 300, 300};
    for (int failed = 1; failed <= caps.length; failed++) {
      long cap = Duration.ofMillis(caps[failed - 1]).toNanos();
      assertEquals(cap / 2, low.waitNanos(failed), "shortest wait after " + failed);
      long longest = high.waitNanos(failed);
      assertTrue(longest <= cap && longest >= cap - 1, longest + " vs cap " + cap);
    }
  }

  @Test
  void noWaitIsOfferedOnceTheAttemptsAreSpent() {
    HandshakeBackoff backoff = new HandshakeBackoff(FIRST, MAX, 3, new SplittableRandom(1));
    assertTrue(backoff.waitNanos(1) > 0);
    assertTrue(backoff.waitNanos(2) > 0);
    assertEquals(-1, backoff.waitNanos(3));
    assertEquals(-1, backoff.waitNanos(4));
    assertEquals(-1, new HandshakeBackoff(FIRST, MAX, 1, LOWEST).waitNanos(1), "1: no retry");
  }

  @Test
  void jitteredWaitsStayInTheirWindowAndNeverShrink() {
    HandshakeBackoff backoff = new HandshakeBackoff(FIRST, MAX, 64, new SplittableRandom(42));
    long distinct = 0;
    long previousFirst = -1;
    for (int run = 0; run < 1000; run++) {
      long previous = 0;
      long previousCap = 0;
      for (int failed = 1; failed < 64; failed++) {
        long cap = Math.min(FIRST.toNanos() << Math.min(failed - 1, 20), MAX.toNanos());
        long wait = backoff.waitNanos(failed);
        assertTrue(wait >= cap / 2 && wait <= cap, "wait " + wait + " outside [cap/2, cap]");
        if (cap == 2 * previousCap) {
          assertTrue(wait >= previous, "while the cap doubles a wait never shrinks");
        }
        previous = wait;
        previousCap = cap;
      }
      long first = backoff.waitNanos(1);
      if (first != previousFirst) {
        distinct++;
      }
      previousFirst = first;
    }
    assertTrue(distinct > 900, "jitter spreads the waits: " + distinct + " distinct of 1000");
  }

  @Test
  void badBoundsAreRejectedNamingTheValue() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new HandshakeBackoff(Duration.ZERO, MAX, 3, LOWEST));
    assertTrue(e.getMessage().contains("firstWait"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> new HandshakeBackoff(MAX, FIRST, 3, LOWEST));
    assertTrue(e.getMessage().contains("maxWait"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> new HandshakeBackoff(FIRST, MAX, 0, LOWEST));
    assertTrue(e.getMessage().contains("maxAttempts must be >= 1, got 0"), e.getMessage());
  }
}
