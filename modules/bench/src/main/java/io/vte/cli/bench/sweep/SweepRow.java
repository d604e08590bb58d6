package io.vte.cli.bench.sweep;

import io.vte.cli.bench.BenchResult;
import io.vte.cli.common.ByteSize;
import java.util.List;
import java.util.Locale;

/**
 * One block size of a sweep.
 *
 * @param blockSize bytes per request
 * @param batchSize requests per batch used for this row
 * @param depth batches in flight per thread used for this row
 * @param gibPerSecond throughput
 * @param opsPerSecond requests per second
 * @param p50Micros median batch latency
 * @param p99Micros 99th percentile batch latency
 * @param failed failed requests
 * @param longestGapNanos the longest time no request completed ({@link
 *     BenchResult#longestGapNanos})
 */
public record SweepRow(
    int blockSize,
    int batchSize,
    int depth,
    double gibPerSecond,
    double opsPerSecond,
    double p50Micros,
    double p99Micros,
    long failed,
    long longestGapNanos) {

  /** The CSV header line. */
  public static final String CSV_HEADER =
      "block_size,batch_size,depth,throughput_gib_s,ops_per_s,p50_us,p99_us,failed";

  /**
   * @param r a measured run
   * @return its sweep row
   */
  public static SweepRow of(BenchResult r) {
    return new SweepRow(
        r.blockSize(),
        r.batchSize(),
        r.depth(),
        r.gibPerSecond(),
        r.opsPerSecond(),
        r.latencyMicros(50),
        r.latencyMicros(99),
        r.failed(),
        r.longestGapNanos());
  }

  /**
   * @return true when no request completed for {@link BenchResult#STALL_NANOS} or longer at this
   *     size
   */
  public boolean stalled() {
    return longestGapNanos >= BenchResult.STALL_NANOS;
  }

  /**
   * @return the CSV line
   */
  public String csv() {
    return String.format(
        Locale.ROOT,
        "%d,%d,%d,%.4f,%.1f,%.1f,%.1f,%d",
        blockSize,
        batchSize,
        depth,
        gibPerSecond,
        opsPerSecond,
        p50Micros,
        p99Micros,
        failed);
  }

  /**
   * Parses {@code --sweep-sizes}: a comma list of sizes as {@link ByteSize} reads them (4096, 64K,
   * 4M, 64MiB).
   *
   * @param text e.g. {@code 4K,64K,1M}
   * @return the sizes, in the given order
   * @throws IllegalArgumentException naming the bad size
   */
  public static List<Integer> parseSizes(String text) {
    return parseList(text, SweepRow::parseSize);
  }

  /**
   * Parses {@code --sweep-batches}: a comma list of batch sizes 1..1024.
   *
   * @param text e.g. {@code 1,32}
   * @return the batch sizes, in the given order
   * @throws IllegalArgumentException naming the bad value
   */
  public static List<Integer> parseBatches(String text) {
    return parseList(text, SweepRow::parseBatch);
  }

  private static List<Integer> parseList(
      String text, java.util.function.Function<String, Integer> one) {
    return java.util.Arrays.stream(text.split(",", -1)).map(String::trim).map(one).toList();
  }

  private static int parseBatch(String s) {
    int v;
    try {
      v = Integer.parseInt(s);
    } catch (NumberFormatException e) {
      v = 0;
    }
    if (v < 1 || v > 1024) {
      throw new IllegalArgumentException("--sweep-batches: '" + s + "' must be 1..1024");
    }
    return v;
  }

  private static int parseSize(String s) {
    long v;
    try {
      v = ByteSize.parse(s);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--sweep-sizes: " + e.getMessage());
    }
    if (v < 1 || v > 64 << 20) {
      throw new IllegalArgumentException("--sweep-sizes: '" + s + "' must be 1 B .. 64M");
    }
    return (int) v;
  }

  /**
   * @param bytes a size
   * @return a short label: 4K, 64K, 1M, 512
   */
  public static String label(long bytes) {
    if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
      return (bytes >> 20) + "M";
    }
    if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
      return (bytes >> 10) + "K";
    }
    return String.valueOf(bytes);
  }
}
