package io.vte.cli.bench;

import java.time.Duration;

/** What every benchmark phase shares: its warm-up and its unit conversion. */
final class Measure {

  private Measure() {}

  /**
   * @return when the warm-up before a measurement of {@code duration} ends: a quarter of it, at
   *     most 0.5 s
   */
  static long warmupEnd(Duration duration) {
    return System.nanoTime() + Math.min(duration.toNanos() / 4, 500_000_000L);
  }

  /**
   * @return bytes per nanosecond interval, in GiB/s
   */
  static double gibPerSecond(long bytes, long nanos) {
    return bytes / (double) (1L << 30) / (nanos / 1e9);
  }
}
