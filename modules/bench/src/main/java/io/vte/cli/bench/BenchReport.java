package io.vte.cli.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.cli.bench.baseline.NioAckedBench;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * Prints a {@link BenchResult}: a table for people or one JSON object for machines.
 *
 * @param mode {@code embedded} or {@code initiator}
 * @param devices device count per engine
 * @param workers owners per device
 * @param sliceSize engine slice size
 * @param baselines the baselines measured in the same command ({@link Baselines#NONE} for none)
 */
public record BenchReport(
    String mode, int devices, int workers, int sliceSize, Baselines baselines) {

  /**
   * What a run is compared with, measured in the same command between its windows.
   *
   * @param nioGibs raw NIO loopback streaming GiB/s over {@code nioStreams} connections, or NaN
   * @param nioStreams connections of the NIO baselines: as many as carried the engine's traffic, at
   *     least 1
   * @param engineConnections the engine's connections (QPs) that carried its traffic before the
   *     last window: 0 when every slice took the same-host rail
   * @param ackedBlockingGibs raw NIO loopback over {@code nioStreams} connections with {@code
   *     ackedInFlight} messages in flight, each acknowledged, blocking sockets ({@link
   *     NioAckedBench}), GiB/s, or NaN
   * @param ackedPollingGibs the same, both ends polling as the engine does ({@code polling}),
   *     GiB/s, or NaN: the like-for-like one
   * @param ackedInFlight messages in flight of the acked baselines: the run's requests in flight
   * @param polling the engine's spin windows, which the polling acked baseline uses
   * @param memcpyGibs one thread copying the block size between two native buffers, GiB/s, or NaN
   * @param memcpyThreadsGibs {@code memcpyThreads} threads doing so, GiB/s, or NaN when the
   *     same-host rail ran no copier
   * @param memcpyThreads the same-host rail's copier threads, 0 when it ran none
   */
  public record Baselines(
      double nioGibs,
      int nioStreams,
      int engineConnections,
      double ackedBlockingGibs,
      double ackedPollingGibs,
      int ackedInFlight,
      NioAckedBench.Polling polling,
      double memcpyGibs,
      double memcpyThreadsGibs,
      int memcpyThreads) {

    /** No baseline measured. */
    public static final Baselines NONE =
        new Baselines(
            Double.NaN,
            0,
            0,
            Double.NaN,
            Double.NaN,
            0,
            NioAckedBench.Polling.BLOCKING,
            Double.NaN,
            Double.NaN,
            0);
  }

  /**
   * @param mode {@code embedded} or {@code initiator}
   * @param devices device count per engine
   * @param workers owners per device
   * @param sliceSize engine slice size
   * @param baselineGibs raw NIO loopback GiB/s over one stream, or NaN
   */
  public BenchReport(String mode, int devices, int workers, int sliceSize, double baselineGibs) {
    this(
        mode,
        devices,
        workers,
        sliceSize,
        new Baselines(
            baselineGibs,
            1,
            1,
            Double.NaN,
            Double.NaN,
            0,
            NioAckedBench.Polling.BLOCKING,
            Double.NaN,
            Double.NaN,
            0));
  }

  /**
   * @return the NIO baseline GiB/s, or NaN
   */
  public double baselineGibs() {
    return baselines.nioGibs();
  }

  private static final double[] PERCENTILES = {50, 90, 99, 99.9};

  /**
   * @param r the result
   * @return the JSON form
   */
  public JsonObject json(BenchResult r) {
    JsonObject latency =
        new JsonObject()
            .put("p50", round(r.latencyMicros(50)))
            .put("p90", round(r.latencyMicros(90)))
            .put("p99", round(r.latencyMicros(99)))
            .put("p99_9", round(r.latencyMicros(99.9)))
            .put("max", round(r.latency().getMaxValue() / 1000.0));
    JsonObject json =
        new JsonObject()
            .put("mode", mode)
            .put("operation", r.opcode().name().toLowerCase(Locale.ROOT))
            .put("throughput_gib_s", round(r.gibPerSecond()))
            .put("ops", r.ops())
            .put("ops_per_s", round(r.opsPerSecond()))
            .put("failed", r.failed())
            .put("failures", new JsonObject(new java.util.TreeMap<String, Object>(r.failures())))
            .put("verified", r.verified())
            .put("latency_us", latency)
            .put("size", r.blockSize())
            .put("batch_size", r.batchSize())
            .put("depth", r.depth())
            .put("threads", r.threads())
            .put("devices", devices)
            .put("workers", workers)
            .put("slice_size", sliceSize)
            .put("duration_s", round(r.nanos() / 1e9))
            .put("alloc_bytes_per_64k_moved", round(r.allocationPer64KiB()))
            .put("alloc_bytes_per_request", round(SingleRequestRun.allocationPerRequest(r)))
            .put("faults", new JsonArray(r.faults()))
            .put("stalled", r.stalled())
            .put("longest_gap_s", round(r.longestGapNanos() / 1e9))
            .put("overran", r.overran());
    if (r.verifyDetail() != null) {
      json.put("verify_detail", r.verifyDetail());
    }
    double baselineGibs = baselines.nioGibs();
    if (!Double.isNaN(baselineGibs)) {
      json.put("baseline_gib_s", round(baselineGibs))
          .put("baseline_streams", baselines.nioStreams())
          .put("engine_connections", baselines.engineConnections())
          .put("ratio", Math.round(r.gibPerSecond() / baselineGibs * 1000) / 1000.0);
    }
    if (!Double.isNaN(baselines.ackedPollingGibs())) {
      json.put("acked_baseline_gib_s", round(baselines.ackedPollingGibs()))
          .put("acked_baseline_in_flight", baselines.ackedInFlight())
          .put("acked_baseline_poll_us", baselines.polling().sender().toNanos() / 1000)
          .put("acked_baseline_nic_poll_us", baselines.polling().receiver().toNanos() / 1000)
          .put("acked_ratio", round(r.gibPerSecond() / baselines.ackedPollingGibs()))
          .put("acked_blocking_gib_s", round(baselines.ackedBlockingGibs()))
          .put("acked_blocking_ratio", round(r.gibPerSecond() / baselines.ackedBlockingGibs()));
    }
    if (!Double.isNaN(baselines.memcpyGibs())) {
      json.put("memcpy_gib_s", round(baselines.memcpyGibs()))
          .put("memcpy_ratio", round(r.gibPerSecond() / baselines.memcpyGibs()));
    }
    if (!Double.isNaN(baselines.memcpyThreadsGibs())) {
      json.put("memcpy_threads", baselines.memcpyThreads())
          .put("memcpy_threads_gib_s", round(baselines.memcpyThreadsGibs()))
          .put("memcpy_threads_ratio", round(r.gibPerSecond() / baselines.memcpyThreadsGibs()));
    }
    if (r.railBytes() != RailBytes.NONE) {
      json.put("rail_bytes", r.railBytes().json()).put("same_host_bytes", r.railBytes().sameHost());
    }
    return json;
  }

  /**
   * Prints the table or the JSON line.
   *
   * @param out where
   * @param r the result
   * @param asJson one JSON object instead of the table
   */
  public void print(PrintWriter out, BenchResult r, boolean asJson) {
    if (asJson) {
      out.println(json(r).encode());
      out.flush();
      return;
    }
    out.printf(
        Locale.ROOT,
        "vte bench (%s): %s, %d B blocks x %d per batch, %d batches in flight x %d threads, "
            + "%d devices x %d owners, %d B slices, %.1f s%n",
        mode,
        r.opcode(),
        r.blockSize(),
        r.batchSize(),
        r.depth(),
        r.threads(),
        devices,
        workers,
        sliceSize,
        r.nanos() / 1e9);
    row(out, "throughput", String.format(Locale.ROOT, "%.3f GiB/s", r.gibPerSecond()));
    row(out, "ops", String.format(Locale.ROOT, "%d (%.1f ops/s)", r.ops(), r.opsPerSecond()));
    StringBuilder lat = new StringBuilder();
    for (double p : PERCENTILES) {
      lat.append(
          String.format(
              Locale.ROOT,
              "p%s %.1f  ",
              p == 99.9 ? "99.9" : String.valueOf((int) p),
              r.latencyMicros(p)));
    }
    row(
        out,
        "latency us",
        lat.append(String.format(Locale.ROOT, "max %.1f", r.latency().getMaxValue() / 1000.0))
            .toString());
    row(out, "failed", r.failed() + (r.failures().isEmpty() ? "" : "  " + r.failures()));
    if (r.firstFailure() != null) {
      row(out, "first failure", r.firstFailure());
    }
    row(
        out,
        "verified",
        r.verified() == null
            ? "not checked (--no-verify)"
            : r.verified() ? "true" : "FALSE: " + r.verifyDetail());
    row(
        out,
        "allocation",
        String.format(
            Locale.ROOT,
            "%.1f B per 64 KiB moved, %.1f B per request (whole JVM, all threads, ended ones"
                + " included)",
            r.allocationPer64KiB(),
            SingleRequestRun.allocationPerRequest(r)));
    for (String f : r.faults()) {
      row(out, "fault", f);
    }
    if (r.stalled()) {
      row(
          out,
          "STALLED",
          String.format(
              Locale.ROOT,
              "no request completed for %.1f s (a stall is %d s or more)",
              r.longestGapNanos() / 1e9,
              BenchResult.STALL_NANOS / 1_000_000_000L));
    }
    if (r.overran()) {
      row(
          out,
          "OVERRAN",
          String.format(
              Locale.ROOT,
              "took %.1f s for --duration %.1f s (requests in flight finished" + " late)",
              r.nanos() / 1e9,
              r.plannedNanos() / 1e9));
    }
    double baselineGibs = baselines.nioGibs();
    if (!Double.isNaN(baselineGibs)) {
      row(
          out,
          "baseline",
          String.format(
              Locale.ROOT,
              "%.3f GiB/s (raw Java NIO loopback, %d stream%s: the engine's connections that"
                  + " carried its traffic, %d)",
              baselineGibs,
              baselines.nioStreams(),
              baselines.nioStreams() == 1 ? "" : "s",
              baselines.engineConnections()));
      row(
          out,
          "ratio",
          String.format(
              Locale.ROOT,
              "%.3f (target >= %.2f)",
              r.gibPerSecond() / baselineGibs,
              streamingTarget(r.blockSize(), r.batchSize())));
    }
    if (!Double.isNaN(baselines.ackedPollingGibs())) {
      Duration poll = baselines.polling().sender();
      Duration nicPoll = baselines.polling().receiver();
      row(
          out,
          "acked NIO",
          String.format(
              Locale.ROOT,
              "%.3f GiB/s (raw Java NIO loopback, the same streams, %d message%s in flight, each"
                  + " acknowledged with 8 B, polling %d us / %d us as the engine does:"
                  + " like for like)",
              baselines.ackedPollingGibs(),
              baselines.ackedInFlight(),
              baselines.ackedInFlight() == 1 ? "" : "s",
              poll.toNanos() / 1000,
              nicPoll.toNanos() / 1000));
      row(
          out,
          "acked ratio",
          String.format(Locale.ROOT, "%.3f", r.gibPerSecond() / baselines.ackedPollingGibs()));
      row(
          out,
          "acked blocking",
          String.format(
              Locale.ROOT,
              "%.3f GiB/s, ratio %.3f (the same with blocking sockets: not like for like when the"
                  + " engine polls)",
              baselines.ackedBlockingGibs(),
              r.gibPerSecond() / baselines.ackedBlockingGibs()));
    }
    if (!Double.isNaN(baselines.memcpyGibs())) {
      row(
          out,
          "memcpy",
          String.format(
              Locale.ROOT,
              "%.3f GiB/s (one thread copying %d B blocks over the run's region, buffer to buffer)",
              baselines.memcpyGibs(),
              r.blockSize()));
      row(
          out,
          "memcpy ratio",
          String.format(Locale.ROOT, "%.3f", r.gibPerSecond() / baselines.memcpyGibs()));
    }
    if (!Double.isNaN(baselines.memcpyThreadsGibs())) {
      row(
          out,
          "memcpy x" + baselines.memcpyThreads(),
          String.format(
              Locale.ROOT,
              "%.3f GiB/s, ratio %.3f (%d thread%s: the same-host rail's copiers; same-host rail"
                  + " target >= 0.7)",
              baselines.memcpyThreadsGibs(),
              r.gibPerSecond() / baselines.memcpyThreadsGibs(),
              baselines.memcpyThreads(),
              baselines.memcpyThreads() == 1 ? "" : "s"));
    }
    RailBytes rails = r.railBytes();
    if (rails != RailBytes.NONE) {
      row(
          out,
          "rail bytes",
          String.format(
              Locale.ROOT,
              "same-host %d, network %d (measured windows only)",
              rails.sameHost(),
              rails.network()));
      if (rails.fellBack()) {
        row(
            out,
            "FELL BACK",
            rails.network()
                + " B of measured requests meant for the same-host rail took the network");
      }
    }
    out.flush();
  }

  /**
   * @return the ratio to NIO streaming the engine aims at: for single-request batches of 4 KiB 0.5
   *     and up to 64 KiB 0.9 (small requests pay a round trip each that streaming does not), else
   *     0.85
   */
  static double streamingTarget(int blockSize, int batchSize) {
    if (batchSize == 1 && blockSize <= 4096) {
      return 0.5;
    }
    if (batchSize == 1 && blockSize <= 65536) {
      return 0.9;
    }
    return 0.85;
  }

  private static void row(PrintWriter out, String name, String value) {
    out.printf(Locale.ROOT, "  %-14s %s%n", name, value);
  }

  private static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
