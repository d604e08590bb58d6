package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.cli.CliRun;
import io.vte.cli.bench.sweep.SweepRow;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one-JVM bench end to end, in-process: JSON fields, a tiny sweep's files, a fault schedule
 * reported.
 */
@ExtendWith(BlockedThreadGuard.class)
class EmbeddedBenchTest {

  private static JsonObject onlyJsonLine(CliRun r) {
    List<String> lines = r.out().lines().toList();
    assertEquals(1, lines.size(), r.out() + r.err());
    return new JsonObject(lines.get(0));
  }

  @Test
  void readWithVerifyReportsEveryFieldAndReleasesEverything() {
    // A first short run starts the JVM-wide helpers that stay for good (e.g. a
    // java.lang.ref.Cleaner thread).
    CliRun first =
        CliRun.of(
            "bench",
            "--block-size",
            "65536",
            "--duration",
            "0.2",
            "--warmup",
            "0",
            "--no-progress",
            "--no-verify",
            "--json");
    assertEquals(0, first.exit(), first.err());
    assertTrue(
        onlyJsonLine(first).getValue("verified") == null,
        "not checked is not 'false': " + first.out());
    ResourceSnapshot before = ResourceSnapshot.take();
    CliRun r =
        CliRun.of(
            "bench",
            "--operation",
            "read",
            "--block-size",
            "262144",
            "--batch-size",
            "2",
            "--threads",
            "2",
            "--depth",
            "2",
            "--duration",
            "0.5",
            "--warmup",
            "0.3",
            "--verify",
            "--json",
            "--no-progress");
    assertEquals(0, r.exit(), r.err());
    JsonObject json = onlyJsonLine(r);
    assertEquals("read", json.getString("operation"));
    assertEquals(true, json.getBoolean("verified"), json.encode());
    assertEquals(0L, json.getLong("failed"));
    assertTrue(
        json.getLong("ops") > 0 && json.getLong("ops") % 2 == 0, "whole batches of 2: " + json);
    assertTrue(json.getDouble("throughput_gib_s") > 0, json.encode());
    JsonObject lat = json.getJsonObject("latency_us");
    double p50 = lat.getDouble("p50");
    assertTrue(
        p50 > 0
            && p50 <= lat.getDouble("p90")
            && lat.getDouble("p90") <= lat.getDouble("p99")
            && lat.getDouble("p99") <= lat.getDouble("p99_9")
            && lat.getDouble("p99_9") <= lat.getDouble("max"),
        lat.encode());
    assertEquals(262144, json.getInteger("size"));
    assertEquals(2, json.getInteger("threads"));
    assertTrue(json.getDouble("alloc_bytes_per_64k_moved") > 0, json.encode());
    assertEquals(
        json.getDouble("alloc_bytes_per_64k_moved") * 4,
        json.getDouble("alloc_bytes_per_request"),
        0.01,
        "a 256 KiB request moves four 64 KiB: " + json);
    JsonObject single = json.getJsonObject("batch1");
    assertTrue(
        single.getDouble("ops_per_s") > 0 && single.getDouble("p50_us") > 0, single.encode());
    assertEquals(true, single.getBoolean("verified"), "single requests are checked too: " + single);
    JsonObject fromThread = single.getJsonObject("caller_thread");
    assertTrue(
        fromThread.getDouble("ops_per_s") > 0 && fromThread.getDouble("p50_us") > 0,
        "single requests from a plain thread measured too: " + single);
    assertEquals(true, fromThread.getBoolean("verified"), single.encode());
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
  }

  @Test
  void baselineAlternatesWithTheEngineAndTheDataIsCheckedByDefault() {
    JsonObject json = oneSecondOfMebibyteBlocks("--baseline");
    assertEquals(true, json.getBoolean("verified"), "checked without --verify: " + json);
    assertRatioOfThroughputTo(json, "baseline_gib_s", "ratio");
    assertEquals(
        1.0,
        json.getDouble("duration_s"),
        0.25,
        "the engine's windows add up to --duration: " + json);
    assertRatioOfThroughputTo(json, "memcpy_gib_s", "memcpy_ratio");
    // 1 MiB requests of 64 KiB slices, 8 in flight: every owner's QP of both devices carries some
    assertEquals(
        4,
        json.getInteger("engine_connections"),
        "the QPs of 2 devices x 2 owners carried the run: " + json);
    assertEquals(
        4, json.getInteger("baseline_streams"), "as many NIO streams as carried it: " + json);
    assertTrue(
        json.getDouble("acked_baseline_gib_s") > 0 && json.getDouble("acked_blocking_gib_s") > 0,
        "the polling (like-for-like) and the blocking acked baselines: " + json);
    assertEquals(100, json.getInteger("acked_baseline_poll_us"), "the engine's busyPollMicros");
    assertFalse(json.containsKey("memcpy_threads"), "no same-host rail, no copiers: " + json);
    JsonObject rails = json.getJsonObject("rail_bytes");
    assertEquals(0L, rails.getLong("same_host"), "no same-host rail without allocate: " + json);
    assertEquals(
        json.getLong("ops") * 1048576L,
        rails.getLong("network"),
        "the measured requests' bytes, not the warm-up's nor the single requests': " + json);
    JsonObject single = json.getJsonObject("batch1");
    assertTrue(
        single.getDouble("tcp_blocking_p50_us") > 0 && single.getDouble("tcp_busy_poll_p50_us") > 0,
        "both TCP ping-pongs of the same size measured: " + single);
    assertEquals(
        single.getDouble("p50_us") / single.getDouble("tcp_busy_poll_p50_us"),
        single.getDouble("p50_vs_tcp_busy_poll"),
        0.01,
        single.encode());
    JsonObject fromThread = single.getJsonObject("caller_thread");
    assertEquals(
        fromThread.getDouble("p50_us") / single.getDouble("tcp_blocking_p50_us"),
        fromThread.getDouble("p50_vs_tcp_blocking"),
        0.01,
        "a caller thread's p50 against the same run's ping-pong: " + single);
  }

  @Test
  void withSharedMemoryTheSameHostRailCarriesTheRunAndTheDataIsExact() {
    for (String operation : List.of("write", "read")) {
      JsonObject json =
          oneSecondOfMebibyteBlocks("--shared-memory", "--operation", operation, "--baseline");
      assertEquals(true, json.getBoolean("verified"), operation + ": " + json);
      assertEquals(0, json.getLong("failed"), json.encode());
      JsonObject rails = json.getJsonObject("rail_bytes");
      assertEquals(
          json.getLong("ops") * 1048576L,
          rails.getLong("same_host"),
          operation + ": every measured request took the same-host rail: " + json);
      assertEquals(0L, rails.getLong("network"), json.encode());
      assertEquals(true, rails.getBoolean("same_host_expected"), json.encode());
      assertEquals(0, json.getInteger("engine_connections"), "no QP carried the run: " + json);
      assertEquals(
          Math.min(2, Runtime.getRuntime().availableProcessors()),
          json.getInteger("memcpy_threads"),
          "as many as the rail has copiers (2, or 1 on one core): " + json);
      assertTrue(json.getDouble("memcpy_threads_gib_s") > 0, json.encode());
      assertTrue(json.getDouble("memcpy_gib_s") > 0, "the one-thread figure beside it: " + json);
    }
  }

  /** The baseline {@code field} was measured and {@code ratio} is the throughput over it. */
  private static void assertRatioOfThroughputTo(JsonObject json, String field, String ratio) {
    assertTrue(json.getDouble(field) > 0, field + " in " + json);
    assertEquals(
        json.getDouble("throughput_gib_s") / json.getDouble(field),
        json.getDouble(ratio),
        0.01,
        json.encode());
  }

  /** Runs {@code vte bench} for 1 s of 1 MiB blocks with {@code flags}; its JSON, exit status 0. */
  private static JsonObject oneSecondOfMebibyteBlocks(String... flags) {
    List<String> args = new ArrayList<>(List.of(flags));
    args.addAll(
        List.of(
            "--block-size",
            "1048576",
            "--duration",
            "1",
            "--warmup",
            "0.3",
            "--json",
            "--no-progress"));
    args.add(0, "bench");
    CliRun r = CliRun.of(args.toArray(String[]::new));
    assertEquals(0, r.exit(), r.err());
    return onlyJsonLine(r);
  }

  @Test
  void aTinySweepWritesItsCsvAndAReadablePng(@TempDir Path dir) throws Exception {
    CliRun r =
        CliRun.of(
            "bench",
            "--sweep",
            "--sweep-sizes",
            "64K,1M",
            "--sweep-duration",
            "0.5",
            "--warmup",
            "0.3",
            "--out",
            dir.toString(),
            "--json",
            "--no-progress");
    assertEquals(0, r.exit(), r.err());
    JsonArray rows = onlyJsonLine(r).getJsonArray("sweep");
    assertEquals(4, rows.size(), "each size at batch size 1, then at 32: " + rows);
    List<String> csv = Files.readAllLines(dir.resolve("sweep.csv"));
    assertEquals(SweepRow.CSV_HEADER, csv.get(0));
    assertEquals(5, csv.size(), csv.toString());
    // block_size,batch_size,depth: 32 x 1 MiB x 8 fits the 256 MiB region
    List<String> prefixes = List.of("65536,1,8,", "1048576,1,8,", "65536,32,8,", "1048576,32,8,");
    for (int i = 0; i < prefixes.size(); i++) {
      assertTrue(csv.get(i + 1).startsWith(prefixes.get(i)), prefixes.get(i) + " in " + csv);
    }
    for (String line : csv.subList(1, 5)) {
      String[] f = line.split(",");
      assertTrue(Double.parseDouble(f[3]) > 0 && Double.parseDouble(f[6]) > 0, line);
      assertEquals("0", f[7], line);
    }
    BufferedImage png = ImageIO.read(dir.resolve("sweep.png").toFile());
    assertEquals(960, png.getWidth());
    assertEquals(560, png.getHeight());
  }

  @Test
  void injectedPortDownAndUpAreReportedAndEveryFailureHasACause() {
    CliRun r =
        CliRun.of(
            "bench",
            "--block-size",
            "1048576",
            "--duration",
            "3",
            "--warmup",
            "0.5",
            "--verify",
            "--inject",
            "port-down:src1@0.5s,port-up:src1@1.5s,qp-fatal:dst0@2s",
            "--json",
            "--no-progress");
    JsonObject json = onlyJsonLine(r);
    assertEquals(
        List.of("port-down:src1@0.500s applied", "port-up:src1@1.500s applied"),
        json.getJsonArray("faults").getList().subList(0, 2));
    assertTrue(
        json.getJsonArray("faults").getString(2).startsWith("qp-fatal:dst0@2.000s applied to "),
        json.encode());
    long failed = json.getLong("failed");
    long byCause =
        json.getJsonObject("failures").stream()
            .mapToLong(e -> ((Number) e.getValue()).longValue())
            .sum();
    assertEquals(failed, byCause, "every failed request is counted under its cause: " + json);
    // a run in which nothing completed for 5 s (here: the target's QPs recovering from qp-fatal)
    // failed too
    assertEquals(failed == 0 && !json.getBoolean("stalled") ? 0 : 1, r.exit(), r.err() + json);
    assertEquals(true, json.getBoolean("verified"), "the data is exact after failover: " + json);
  }
}
