package io.vte.cli.bench;

import io.vte.api.TransferOpcode;
import io.vte.cli.common.ExitCodes;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one measured run produced.
 *
 * @param opcode READ or WRITE
 * @param blockSize bytes per request
 * @param batchSize requests per batch
 * @param depth batches in flight per thread
 * @param threads submitting threads
 * @param ops requests finished (completed or not)
 * @param failed requests that did not complete
 * @param bytes bytes of completed requests
 * @param nanos measured wall time
 * @param latency batch latency in nanoseconds
 * @param failures failed requests per cause ({@code STATUS/ERROR_CODE})
 * @param firstFailure the first failure's message, or null
 * @param verified null when not checked, else whether every checked byte was exact
 * @param verifyDetail where the first wrong byte was, or null
 * @param allocatedBytes bytes the whole JVM allocated during the measurement (-1 when unknown)
 * @param faults the injected faults and their outcome
 * @param longestGapNanos the longest time in which no request of a submitting thread completed
 * @param plannedNanos the measurement time asked for ({@code --duration}), or -1 when not known
 * @param railBytes what the rails moved in the measured windows ({@link RailBytes#NONE} when not
 *     counted)
 */
public record BenchResult(
    TransferOpcode opcode,
    int blockSize,
    int batchSize,
    int depth,
    int threads,
    long ops,
    long failed,
    long bytes,
    long nanos,
    Histogram latency,
    Map<String, Long> failures,
    String firstFailure,
    Boolean verified,
    String verifyDetail,
    long allocatedBytes,
    List<String> faults,
    long longestGapNanos,
    long plannedNanos,
    RailBytes railBytes) {

  /** No request completing for this long makes a run stalled. */
  public static final long STALL_NANOS = 5_000_000_000L;

  /**
   * A run overran when it took this much longer than asked for (or a tenth of the time asked, if
   * more).
   */
  public static final long OVERRUN_NANOS = 1_000_000_000L;

  /**
   * @return {@link ExitCodes#OK} when every request completed, the data is exact and no measured
   *     request meant for the same-host rail fell back to the network, else {@link
   *     ExitCodes#RUN_FAILED}
   */
  public int exitCode() {
    return failed == 0 && verified != Boolean.FALSE && !stalled() && !railBytes.fellBack()
        ? ExitCodes.OK
        : ExitCodes.RUN_FAILED;
  }

  /**
   * @return true when some submitting thread saw no request complete for {@link #STALL_NANOS} or
   *     longer
   */
  public boolean stalled() {
    return longestGapNanos >= STALL_NANOS;
  }

  /**
   * @return true when the run took more than {@link #OVERRUN_NANOS} (or a tenth) longer than asked
   *     for
   */
  public boolean overran() {
    return plannedNanos > 0 && nanos - plannedNanos > Math.max(OVERRUN_NANOS, plannedNanos / 10);
  }

  /**
   * @return throughput in GiB/s of completed bytes
   */
  public double gibPerSecond() {
    return nanos == 0 ? 0 : bytes / (double) (1L << 30) / (nanos / 1e9);
  }

  /**
   * @return requests per second
   */
  public double opsPerSecond() {
    return nanos == 0 ? 0 : ops / (nanos / 1e9);
  }

  /**
   * @param percentile 0..100
   * @return the batch latency at that percentile, in microseconds
   */
  public double latencyMicros(double percentile) {
    return latency.getValueAtPercentile(percentile) / 1000.0;
  }

  /**
   * @return JVM-wide allocation per 64 KiB of data moved, or -1 when unknown
   */
  public double allocationPer64KiB() {
    return allocatedBytes < 0 || bytes == 0 ? -1 : allocatedBytes / (bytes / 65536.0);
  }

  /**
   * @param verified the verification outcome
   * @param detail where it went wrong, or null
   * @param allocated JVM-wide bytes allocated during the measurement
   * @param faultLog the injected faults
   * @param planned the measurement time asked for
   * @param rails what the rails moved in the measured windows
   * @return a copy with the measurement-level facts filled in
   */
  public BenchResult with(
      Boolean verified,
      String detail,
      long allocated,
      List<String> faultLog,
      long planned,
      RailBytes rails) {
    return new BenchResult(
        opcode,
        blockSize,
        batchSize,
        depth,
        threads,
        ops,
        failed,
        bytes,
        nanos,
        latency,
        failures,
        firstFailure,
        verified,
        detail,
        allocated,
        faultLog,
        longestGapNanos,
        planned,
        rails);
  }
}
