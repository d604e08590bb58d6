package io.vte.engine.impl.handshake;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

/**
 * When an owner tries a refused handshake again: exponential backoff with "equal" jitter, bounded.
 * After the n-th failed attempt the wait is drawn from {@code [cap/2, cap]} with {@code cap =
 * min(maxWait, firstWait * 2^(n-1))}, so waits never shrink while the cap doubles, and peers
 * refused at the same moment (a reconnect storm) spread out instead of knocking again in step.
 * After {@code maxAttempts} attempts there is no further one; the caller also gives up when the
 * wait would end past its handshake deadline.
 *
 * <p>Owner-confined (its random generator is not shared); the random generator is injected so tests
 * get a fixed schedule.
 */
public final class HandshakeBackoff {

  /** Longest wait of the first retry of an engine's owners. */
  public static final Duration FIRST_WAIT = Duration.ofMillis(20);

  /** Longest wait between two attempts of an engine's owners. */
  public static final Duration MAX_WAIT = Duration.ofSeconds(1);

  /** Attempts (the first request included) an engine's owners make per handshake. */
  static final int MAX_ATTEMPTS = 8;

  private final long firstWaitNanos;
  private final long maxWaitNanos;
  private final int maxAttempts;
  private final RandomGenerator random;

  /**
   * @param firstWait longest wait after the first failed attempt, positive
   * @param maxWait longest wait ever, at least {@code firstWait}
   * @param maxAttempts attempts per handshake, the first included, at least 1 (1: no retry)
   * @param random where the jitter comes from
   * @throws IllegalArgumentException naming the bad bound
   */
  public HandshakeBackoff(
      Duration firstWait, Duration maxWait, int maxAttempts, RandomGenerator random) {
    if (firstWait.isNegative() || firstWait.isZero()) {
      throw new IllegalArgumentException("firstWait must be positive, got " + firstWait);
    }
    if (maxWait.compareTo(firstWait) < 0) {
      throw new IllegalArgumentException(
          "maxWait (" + maxWait + ") must be >= firstWait (" + firstWait + ")");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
    }
    this.firstWaitNanos = firstWait.toNanos();
    this.maxWaitNanos = maxWait.toNanos();
    this.maxAttempts = maxAttempts;
    this.random = random;
  }

  /**
   * @return an engine owner's backoff ({@link #FIRST_WAIT}, {@link #MAX_WAIT}, {@link
   *     #MAX_ATTEMPTS}) with its own random generator
   */
  public static HandshakeBackoff standard() {
    return new HandshakeBackoff(FIRST_WAIT, MAX_WAIT, MAX_ATTEMPTS, new SplittableRandom());
  }

  /**
   * @param failedAttempts attempts made so far, all failed (at least 1)
   * @return nanoseconds to wait before the next attempt, or -1 when {@code maxAttempts} are spent
   */
  public long waitNanos(int failedAttempts) {
    if (failedAttempts >= maxAttempts) {
      return -1;
    }
    // Doubling stops at the cap long before a shift could overflow.
    long cap = firstWaitNanos;
    for (int i = 1; i < failedAttempts && cap < maxWaitNanos; i++) {
      cap *= 2;
    }
    cap = Math.min(cap, maxWaitNanos);
    long half = cap / 2;
    return cap - half + (long) (half * random.nextDouble());
  }
}
