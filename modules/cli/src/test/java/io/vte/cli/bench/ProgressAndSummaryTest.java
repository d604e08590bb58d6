package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.TransferOpcode;
import io.vte.cli.CliRun;
import io.vte.cli.bench.baseline.NioAckedBench;
import io.vte.cli.bench.sweep.Sweep;
import io.vte.cli.bench.sweep.SweepRow;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The progress line marks faults, retries and down devices; the summary table says when a run
 * stalled or overran.
 */
class ProgressAndSummaryTest {

  private static final Pattern PROGRESS =
      Pattern.compile(
          "\\[\\s*[\\d.]+ s\\]\\s+[\\d.]+ GiB/s  ops \\d+  errors \\d+"
              + "  retries (\\d+)(?:  down (\\S+))?");

  @Test
  void faultsRetriesAndDownDevicesShowInTheProgressAndAStallInTheTable() {
    // The QPs of src0, src1 and src0 again fatal (fault times count from the first slice posted):
    // the slices in flight on them are retried (the engine's retries). Both devices, since the load
    // generator's slices favour the rail whose owner runs on its own event loop, and src1 alone
    // had none in flight beside a CPU hog. Each of the first two fatal errors comes while its
    // device drops every frame it sends: on a loaded machine the peer may otherwise have acked all
    // a QP had sent before the error lands (0 retries, seen in CI), while unacked ones are sure to
    // be flushed and retried. Then src1's port down, then src0's too: nothing moves
    // for over 5 s, a stall. Every port fault falls half-way between two
    // of the 1 s progress ticks and src1 is down alone for 2 s, so two ticks land in that window
    // however late a loaded machine prints them or applies a fault
    CliRun r =
        CliRun.of(
            "bench",
            "--duration",
            "10",
            "--warmup",
            "0.5",
            "--block-size",
            "64K",
            "--handshake-timeout",
            "30",
            "--inject",
            "drop:src0:1@0.3s,qp-fatal:src0@0.5s,clear:src0@0.55s,drop:src1:1@0.6s,qp-fatal:src1@0.7s,"
                + "clear:src1@0.75s,qp-fatal:src0@0.9s,port-down:src1@1.5s,port-down:src0@3.5s,"
                + "port-up:src0@9.5s,port-up:src1@9.5s");
    assertEquals(1, r.exit(), r.err() + r.out());
    List<String> err = r.err().lines().toList();
    for (String step :
        List.of(
            "qp-fatal:src0@0.500s applied to ",
            "qp-fatal:src1@0.700s applied to ",
            "qp-fatal:src0@0.900s applied to ",
            "port-down:src1@1.500s applied",
            "port-down:src0@3.500s applied",
            "port-up:src0@9.500s applied")) {
      assertTrue(
          err.stream()
              .anyMatch(l -> l.matches("\\[\\s*[\\d.]+ s\\] fault " + Pattern.quote(step) + ".*")),
          step + " marked as it applies: " + r.err());
    }
    assertTrue(
        err.stream().noneMatch(l -> l.matches(".*\\] +-[\\d.]+ GiB/s.*")),
        "no negative rate while requests fail: " + r.err());
    List<Matcher> lines = err.stream().map(PROGRESS::matcher).filter(Matcher::matches).toList();
    assertTrue(lines.size() >= 5, r.err());
    assertTrue(
        lines.stream().anyMatch(m -> "src1".equals(m.group(2))), "src1 alone down: " + r.err());
    assertTrue(
        lines.stream().anyMatch(m -> "src0,src1".equals(m.group(2))), "both down: " + r.err());
    assertTrue(
        lines.stream().anyMatch(m -> Long.parseLong(m.group(1)) > 0),
        "retries counted: " + r.err());
    Matcher stalled =
        Pattern.compile(
                "  STALLED        no request completed for ([\\d.]+) s \\(a stall is 5 s or more\\)")
            .matcher(r.out());
    assertTrue(stalled.find(), r.out());
    assertTrue(Double.parseDouble(stalled.group(1)) >= 5, r.out());
  }

  private static BenchResult result(long nanos, long gapNanos, long plannedNanos) {
    return result(nanos, gapNanos, plannedNanos, RailBytes.NONE);
  }

  private static BenchResult result(long nanos, long gapNanos, long plannedNanos, RailBytes rails) {
    return new BenchResult(
        TransferOpcode.WRITE,
        4096,
        1,
        1,
        1,
        10,
        0,
        40960,
        nanos,
        new Histogram(3),
        Map.of(),
        null,
        true,
        null,
        -1,
        List.of(),
        gapNanos,
        plannedNanos,
        rails);
  }

  private static String table(BenchResult r) {
    StringWriter out = new StringWriter();
    new BenchReport("embedded", 2, 2, 65536, Double.NaN).print(new PrintWriter(out), r, false);
    return out.toString();
  }

  @Test
  void theBaselinesAndTheirRatiosArePrintedWithTheTargetOfTheBlockSize() {
    // 40960 B in 1 s: 3.815e-5 GiB/s; the baselines are twice and four times that
    BenchResult r = result(1_000_000_000L, 0, 1_000_000_000L);
    double gibs = r.gibPerSecond();
    BenchReport report =
        new BenchReport(
            "embedded",
            2,
            2,
            65536,
            new BenchReport.Baselines(
                4 * gibs,
                4,
                4,
                8 * gibs,
                2 * gibs,
                8,
                new NioAckedBench.Polling(Duration.ofNanos(100_000), Duration.ofNanos(50_000)),
                Double.NaN,
                Double.NaN,
                0));
    StringWriter out = new StringWriter();
    report.print(new PrintWriter(out), r, false);
    String table = out.toString();
    assertTrue(table.contains("  ratio          0.250 (target >= 0.50)"), table);
    assertTrue(
        table.contains("4 streams: the engine's connections that carried its traffic, 4")
            && table.contains("the same streams, 8 messages in flight, each acknowledged"),
        table);
    assertTrue(table.contains("  acked ratio    0.500"), table);
    assertTrue(
        table.contains("polling 100 us / 50 us as the engine does: like for like"),
        "the polling acked baseline is the like-for-like one: " + table);
    assertTrue(
        table.contains("acked blocking 0.000 GiB/s, ratio 0.125 (the same with blocking sockets"),
        table);
    JsonObject json = report.json(r);
    assertEquals(0.125, json.getDouble("acked_blocking_ratio"), json.encode());
    assertEquals(0.25, json.getDouble("ratio"), json.encode());
    assertEquals(0.5, json.getDouble("acked_ratio"), json.encode());
    assertEquals(8, json.getInteger("acked_baseline_in_flight"), json.encode());
    assertFalse(json.containsKey("memcpy_ratio"), "no memcpy baseline was measured");
    assertEquals(0.9, BenchReport.streamingTarget(65536, 1));
    assertEquals(0.85, BenchReport.streamingTarget(4096, 32));
    assertEquals(0.85, BenchReport.streamingTarget(4 << 20, 1));
  }

  @Test
  void aMeasuredRequestThatFellBackToTheNetworkFailsTheRun() {
    BenchReport report = new BenchReport("embedded", 2, 2, 65536, Double.NaN);
    BenchResult onRail = result(1_000_000_000L, 0, 1_000_000_000L, new RailBytes(40960, 0, true));
    assertEquals(0, onRail.exitCode(), "every byte took the same-host rail");
    assertTrue(
        table(onRail)
            .contains("  rail bytes     same-host 40960, network 0 (measured windows only)"),
        table(onRail));
    assertEquals(40960L, report.json(onRail).getLong("same_host_bytes"));

    BenchResult fellBack =
        result(1_000_000_000L, 0, 1_000_000_000L, new RailBytes(36864, 4096, true));
    assertEquals(1, fellBack.exitCode(), "a request fell back to the network");
    assertTrue(
        table(fellBack).contains("  FELL BACK      4096 B of measured requests"), table(fellBack));
    JsonObject json = report.json(fellBack);
    assertEquals(true, json.getJsonObject("rail_bytes").getBoolean("fell_back"), json.encode());
    assertEquals(4096L, json.getJsonObject("rail_bytes").getLong("network"), json.encode());

    BenchResult network = result(1_000_000_000L, 0, 1_000_000_000L, new RailBytes(0, 40960, false));
    assertEquals(
        0, network.exitCode(), "a run not meant for the same-host rail may use the network");
    assertFalse(table(network).contains("FELL BACK"), table(network));
  }

  @Test
  void theTableAndTheJsonSayWhenARunOverranOrStalled() {
    BenchReport report = new BenchReport("embedded", 2, 2, 65536, Double.NaN);
    BenchResult late = result(12_000_000_000L, 100_000_000L, 10_000_000_000L);
    assertTrue(
        table(late).contains("  OVERRAN        took 12.0 s for --duration 10.0 s"), table(late));
    assertFalse(table(late).contains("STALLED"), table(late));
    JsonObject lateJson = report.json(late);
    assertEquals(true, lateJson.getBoolean("overran"), lateJson.encode());
    assertEquals(false, lateJson.getBoolean("stalled"), lateJson.encode());
    assertEquals(0, late.exitCode(), "an overrun alone is reported, not a failure");

    BenchResult onTime = result(10_900_000_000L, 4_900_000_000L, 10_000_000_000L);
    assertFalse(
        table(onTime).contains("OVERRAN") || table(onTime).contains("STALLED"), table(onTime));
    assertEquals(0, onTime.exitCode());

    BenchResult stuck = result(10_000_000_000L, 5_000_000_000L, 10_000_000_000L);
    assertTrue(
        table(stuck).contains("  STALLED        no request completed for 5.0 s"), table(stuck));
    assertEquals(true, report.json(stuck).getBoolean("stalled"));
    assertEquals(5.0, report.json(stuck).getDouble("longest_gap_s"));
    assertEquals(1, stuck.exitCode(), "a stalled run failed");
  }

  @Test
  void theSweepTableNamesTheSizeThatStalled() {
    List<SweepRow> rows =
        List.of(
            new SweepRow(4096, 1, 8, 0.1, 20000, 50, 200, 0, 4_000_000_000L),
            new SweepRow(1 << 20, 1, 8, 0.01, 20, 400, 900, 0, 6_500_000_000L));
    StringWriter out = new StringWriter();
    Sweep.printTable(new PrintWriter(out), rows, java.nio.file.Path.of("bench-out"));
    List<String> stalls = out.toString().lines().filter(l -> l.startsWith("STALLED")).toList();
    assertEquals(
        List.of("STALLED at 1M: no request completed for 6.5 s (a stall is 5 s or more)"),
        stalls,
        out.toString());
    assertEquals(
        List.of(false, true),
        Sweep.json(rows, java.nio.file.Path.of("bench-out")).getJsonArray("sweep").stream()
            .map(o -> ((JsonObject) o).getBoolean("stalled"))
            .toList());
  }
}
