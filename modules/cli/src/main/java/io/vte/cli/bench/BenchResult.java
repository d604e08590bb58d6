package io.vte.cli.bench;

import io.vte.api.TransferOpcode;
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
 */
public record BenchResult(TransferOpcode opcode, int blockSize, int batchSize, int depth, int threads, long ops,
    long failed, long bytes, long nanos, Histogram latency, Map<String, Long> failures, String firstFailure,
    Boolean verified, String verifyDetail, long allocatedBytes, List<String> faults) {

  /** @return throughput in GiB/s of completed bytes */
  public double gibPerSecond() {
    return nanos == 0 ? 0 : bytes / (double) (1L << 30) / (nanos / 1e9);
  }

  /** @return requests per second */
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

  /** @return JVM-wide allocation per 64 KiB of data moved, or -1 when unknown */
  public double allocationPer64KiB() {
    return allocatedBytes < 0 || bytes == 0 ? -1 : allocatedBytes / (bytes / 65536.0);
  }

  /**
   * @param verified the verification outcome
   * @param detail where it went wrong, or null
   * @param allocated JVM-wide bytes allocated during the measurement
   * @param faultLog the injected faults
   * @return a copy with the measurement-level facts filled in
   */
  public BenchResult with(Boolean verified, String detail, long allocated, List<String> faultLog) {
    return new BenchResult(opcode, blockSize, batchSize, depth, threads, ops, failed, bytes, nanos, latency, failures,
        firstFailure, verified, detail, allocated, faultLog);
  }
}
