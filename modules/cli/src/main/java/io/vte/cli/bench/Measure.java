package io.vte.cli.bench;

/** Unit conversions of the benchmarks. */
final class Gib {

  private Gib() {}

  /** @return bytes per nanosecond interval, in GiB/s */
  static double perSecond(long bytes, long nanos) {
    return bytes / (double) (1L << 30) / (nanos / 1e9);
  }
}
