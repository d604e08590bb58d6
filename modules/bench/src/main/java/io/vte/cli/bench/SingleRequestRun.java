package io.vte.cli.bench;

import io.vertx.core.json.JsonObject;
import io.vte.cli.bench.baseline.TcpPingPongBench;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The single-request measurement {@code vte bench} makes next to the configured run: batch size 1,
 * one request in flight, so its ops/s is 1 / latency; once from a verticle on an event loop (as the
 * configured run submits) and once from a plain Java thread that awaits each result (as {@code
 * main} or a server's request thread does). With a baseline, a TCP ping-pong of the same message
 * size runs before each window of the event-loop run, once with blocking sockets and once with both
 * sides busy-polling non-blocking ones, and each p50 is given as a multiple of both.
 *
 * @param result the run from an event loop
 * @param fromThread the run from a plain caller thread
 * @param blocking blocking TCP ping-pong round trips (ns), or null without a baseline
 * @param busyPoll busy-polling TCP ping-pong round trips (ns), or null without a baseline
 */
public record SingleRequestRun(
    BenchResult result, BenchResult fromThread, Histogram blocking, Histogram busyPoll) {

  /** Windows of the engine's run, each after one slice of each ping-pong. */
  static final int WINDOWS = 3;

  /** The shortest single-request run: thousands of requests even at a millisecond each. */
  static final Duration MIN_DURATION = Duration.ofMillis(250);

  /** The longest single-request run. */
  static final Duration MAX_DURATION = Duration.ofSeconds(3);

  /** The most warm-up each single-request run gets; never more than the configured run's. */
  static final Duration MAX_WARMUP = Duration.ofMillis(300);

  /**
   * @param load the configured load
   * @return the time each single-request run measures: a quarter of the configured run, from {@link
   *     #MIN_DURATION} to {@link #MAX_DURATION}, so that a short run stays short
   */
  public static Duration durationFor(LoadFlags load) {
    Duration quarter = load.measure().dividedBy(4);
    return quarter.compareTo(MIN_DURATION) < 0
        ? MIN_DURATION
        : quarter.compareTo(MAX_DURATION) > 0 ? MAX_DURATION : quarter;
  }

  /**
   * @param load the configured load
   * @return the warm-up of each single-request run: the configured one, at most {@link #MAX_WARMUP}
   *     (the engine is warm from the configured run already)
   */
  static Duration warmupFor(LoadFlags load) {
    Duration configured = load.warmupTime();
    return configured.compareTo(MAX_WARMUP) < 0 ? configured : MAX_WARMUP;
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
    LoadGenerator.Plan single = load.plan().singleRequest();
    Duration measure = durationFor(load);
    Duration slice = measure.dividedBy(2L * WINDOWS);
    Histogram blocking = baseline ? new Histogram(3) : null;
    Histogram busy = baseline ? new Histogram(3) : null;
    Runnable beforeWindow =
        !baseline
            ? () -> {}
            : () -> {
              blocking.add(TcpPingPongBench.run(slice, load.blockSize(), false).roundTrips());
              busy.add(TcpPingPongBench.run(slice, load.blockSize(), true).roundTrips());
            };
    Duration warmup = warmupFor(load);
    BenchResult loop =
        session.measure(
            single.withCallerThreads(false),
            warmup,
            measure,
            baseline ? WINDOWS : 1,
            beforeWindow,
            List.of(),
            null,
            false);
    BenchResult thread =
        session.measure(
            single.withCallerThreads(true), warmup, measure, 1, () -> {}, List.of(), null, false);
    return new SingleRequestRun(loop, thread, blocking, busy);
  }

  /**
   * @return the JSON form: the event-loop run's figures, and the caller thread's under {@code
   *     caller_thread}
   */
  public JsonObject json() {
    return json(result).put("caller_thread", json(fromThread));
  }

  private JsonObject json(BenchResult r) {
    JsonObject json =
        new JsonObject()
            .put("ops_per_s", round(r.opsPerSecond()))
            .put("p50_us", round(r.latencyMicros(50)))
            .put("p99_us", round(r.latencyMicros(99)))
            .put("failed", r.failed())
            .put("verified", r.verified())
            .put("alloc_bytes_per_request", round(allocationPerRequest(r)));
    if (blocking != null) {
      json.put("tcp_blocking_p50_us", round(micros(blocking, 50)))
          .put("tcp_busy_poll_p50_us", round(micros(busyPoll, 50)))
          .put("p50_vs_tcp_blocking", round(r.latencyMicros(50) / micros(blocking, 50)))
          .put("p50_vs_tcp_busy_poll", round(r.latencyMicros(50) / micros(busyPoll, 50)));
    }
    return json;
  }

  /**
   * Prints its rows under the configured run's table.
   *
   * @param out where
   */
  public void print(PrintWriter out) {
    print(out, "single request", result);
    print(out, "  from a thread", fromThread);
    if (blocking != null) {
      out.printf(
          Locale.ROOT,
          "  %-14s %d B TCP ping-pong p50: blocking %.1f us, busy-polling %.1f us; single request"
              + " %.2fx / %.2fx, from a thread %.2fx / %.2fx (target <= 2x)%n",
          "vs TCP",
          result.blockSize(),
          micros(blocking, 50),
          micros(busyPoll, 50),
          result.latencyMicros(50) / micros(blocking, 50),
          result.latencyMicros(50) / micros(busyPoll, 50),
          fromThread.latencyMicros(50) / micros(blocking, 50),
          fromThread.latencyMicros(50) / micros(busyPoll, 50));
    }
  }

  private static void print(PrintWriter out, String label, BenchResult r) {
    out.printf(
        Locale.ROOT,
        "  %-14s %.1f ops/s, latency p50 %.1f us p99 %.1f us, %.0f B allocated per request,"
            + " failed %d%n",
        label,
        r.opsPerSecond(),
        r.latencyMicros(50),
        r.latencyMicros(99),
        allocationPerRequest(r),
        r.failed());
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
