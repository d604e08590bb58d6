package io.vte.cli.bench.baseline;

import java.time.Duration;

/** What every benchmark phase shares: its warm-up and its unit conversion. */
public final class Measure {

  private Measure() {}

  /**
   * @return when the warm-up before a measurement of {@code duration} ends: a quarter of it, at
   *     most 0.5 s
   * @param duration the measurement
   */
  public static long warmupEnd(Duration duration) {
    return System.nanoTime() + Math.min(duration.toNanos() / 4, 500_000_000L);
  }

  /**
   * @param bytes bytes moved
   * @param nanos in this many nanoseconds
   * @return the rate in GiB/s
   */
  public static double gibPerSecond(long bytes, long nanos) {
    return bytes / (double) (1L << 30) / (nanos / 1e9);
  }
}
