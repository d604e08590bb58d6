package io.vte.cli.bench;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The single-request measurement {@code vte bench} makes next to the configured run: batch size 1,
 * one request in flight, so its ops/s is 1 / latency; with a baseline, a TCP ping-pong of the same
 * message size runs before each of its windows, once with blocking sockets and once with both sides
 * busy-polling non-blocking ones, and the engine's p50 is given as a multiple of each.
 *
 * @param result the engine's run
 * @param blocking blocking TCP ping-pong round trips (ns), or null without a baseline
 * @param busyPoll busy-polling TCP ping-pong round trips (ns), or null without a baseline
 */
public record SingleRequestRun(BenchResult result, Histogram blocking, Histogram busyPoll) {

  /** Windows of the engine's run, each after one slice of each ping-pong. */
  static final int WINDOWS = 3;

  /**
   * @param load the configured load
   * @return the time the single-request run measures: a quarter of the configured run, 1..3 s
   */
  public static Duration durationFor(LoadFlags load) {
    long quarter = load.measure().toNanos() / 4;
    return Duration.ofNanos(Math.max(1_000_000_000L, Math.min(3_000_000_000L, quarter)));
  }

  /**
   * Runs it.
   *
   * @param session the initiator session (its region covers one block)
   * @param load the configured load (operation, block size, verification)
   * @param baseline also measure the TCP ping-pongs
   * @return the measurement
   * @throws Exception when the run could not be driven
   */
  public static SingleRequestRun measure(InitiatorSession session, LoadFlags load, boolean baseline)
      throws Exception {
    LoadGenerator.Plan plan =
        new LoadGenerator.Plan(
            load.opcode(), load.blockSize(), 1, 1, 1, load.verify, load.prepared);
    Duration measure = durationFor(load);
    Duration slice = measure.dividedBy(2L * WINDOWS);
    Histogram blocking = baseline ? new Histogram(3) : null;
    Histogram busy = baseline ? new Histogram(3) : null;
    Runnable beforeWindow =
        !baseline
            ? () -> {}
            : () -> {
              blocking.add(TcpPingPongBench.run(slice, load.blockSize(), false));
              busy.add(TcpPingPongBench.run(slice, load.blockSize(), true));
            };
    BenchResult r =
        session.measure(
            plan,
            Duration.ofMillis(300),
            measure,
            baseline ? WINDOWS : 1,
            beforeWindow,
            List.of(),
            null,
            false);
    return new SingleRequestRun(r, blocking, busy);
  }

  /**
   * @return the JSON form
   */
  public JsonObject json() {
    JsonObject json =
        new JsonObject()
            .put("ops_per_s", round(result.opsPerSecond()))
            .put("p50_us", round(result.latencyMicros(50)))
            .put("p99_us", round(result.latencyMicros(99)))
            .put("failed", result.failed())
            .put("verified", result.verified())
            .put("alloc_bytes_per_request", round(allocationPerRequest(result)));
    if (blocking != null) {
      json.put("tcp_blocking_p50_us", round(micros(blocking, 50)))
          .put("tcp_busy_poll_p50_us", round(micros(busyPoll, 50)))
          .put("p50_vs_tcp_blocking", round(result.latencyMicros(50) / micros(blocking, 50)))
          .put("p50_vs_tcp_busy_poll", round(result.latencyMicros(50) / micros(busyPoll, 50)));
    }
    return json;
  }

  /**
   * Prints its rows under the configured run's table.
   *
   * @param out where
   */
  public void print(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "  %-14s %.1f ops/s, latency p50 %.1f us p99 %.1f us, %.0f B allocated per request,"
            + " failed %d%n",
        "single request",
        result.opsPerSecond(),
        result.latencyMicros(50),
        result.latencyMicros(99),
        allocationPerRequest(result),
        result.failed());
    if (blocking != null) {
      out.printf(
          Locale.ROOT,
          "  %-14s %d B TCP ping-pong p50: blocking %.1f us (%.2fx), busy-polling %.1f us (%.2fx)"
              + " (target <= 2x)%n",
          "vs TCP",
          result.blockSize(),
          micros(blocking, 50),
          result.latencyMicros(50) / micros(blocking, 50),
          micros(busyPoll, 50),
          result.latencyMicros(50) / micros(busyPoll, 50));
    }
  }

  /**
   * @param r a measured run
   * @return JVM-wide bytes allocated per request, or -1 when unknown
   */
  public static double allocationPerRequest(BenchResult r) {
    double per64k = r.allocationPer64KiB();
    return per64k < 0 ? -1 : per64k * r.blockSize() / 65536.0;
  }

  private static double micros(Histogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1000.0;
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
