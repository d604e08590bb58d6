package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.VertxOptions;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.vertx.VteMetrics;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metrics on both sides of a transfer (issue 42 item 4): an initiator engine on a Prometheus
 * registry writes and reads a {@code vte serve} node's pool; its scrape counts the requests by
 * opcode, their latency histogram and the bytes, and the node's scrape counts what its devices
 * served, by opcode, under the node's segment name as the {@code engine} label; the initiator's
 * per-rail up gauges follow a port going down. Neither side logs a WARN, at start or at any scrape.
 */
class ServedMetricsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int BLOCK = 256 << 10;
  private static final int WRITES = 12;
  private static final int READS = 7;

  @TempDir Path dir;

  @Test
  void bothSidesOfATransferCountWhatMoved() throws Exception {
    Path conf = dir.resolve("node.json");
    Files.writeString(
        conf,
        "{\"devices\": [\"sm0@127.0.0.1\", \"sm1@127.0.0.1\"], \"workersPerContext\": 1,"
            + " \"segmentName\": \"served-node\"}");
    try (ServeNode node =
        new ServeNode("--config", conf.toString(), "--http-port", "0", "--pool-size", "4M")) {
      String before = node.get("/metrics");
      assertEquals(0, sum(before, "vte_engine_served_bytes_total", "opcode=\"WRITE\""), before);

      VteMetrics metrics = VteMetrics.createVertx(new VertxOptions());
      TransferEngine engine =
          Await.result(
              TransferEngine.create(
                  metrics.vertx(),
                  new EngineOptions()
                      .setDevices(List.of("im0@127.0.0.1"))
                      .setWorkersPerContext(1)
                      .setRpcHost("127.0.0.1")
                      .setSegmentName("initiator-node")
                      // a loaded machine answers a first GetSegment slowly
                      .setHandshakeDeadline(Duration.ofSeconds(30))),
              WAIT);
      try {
        RegisteredBuffer local =
            Await.result(engine.register(ByteBuffer.allocateDirect(BLOCK), "cpu:0"), WAIT);
        SegmentHandle segment = Await.result(engine.openSegment(node.server()), WAIT);
        SegmentBuffer pool = segment.buffers().get(0);
        List<TransferRequest> batch = new ArrayList<>();
        for (int i = 0; i < WRITES; i++) {
          batch.add(
              TransferRequest.write(local, 0, segment, pool.address() + (long) i * BLOCK, BLOCK));
        }
        assertTrue(submit(engine, batch).allCompleted());
        for (int i = 0; i < READS; i++) {
          assertTrue(
              submit(
                      engine,
                      List.of(TransferRequest.read(local, 0, segment, pool.address(), BLOCK)))
                  .allCompleted());
        }

        String mine = metrics.registry().scrape();
        String label = "engine=\"initiator-node\"";
        assertEquals(WRITES, sum(mine, "vte_engine_requests_total", "opcode=\"WRITE\"", label));
        assertEquals(READS, sum(mine, "vte_engine_requests_total", "opcode=\"READ\"", label));
        assertEquals(0, sum(mine, "vte_engine_requests_failed_total", label), mine);
        assertEquals(
            WRITES + READS, sum(mine, "vte_engine_request_latency_seconds_count", label), mine);
        assertTrue(
            mine.contains("vte_engine_request_latency_seconds_bucket{"), "a Prometheus histogram");
        assertEquals((WRITES + READS) * (double) BLOCK, sum(mine, "vte_engine_bytes_total", label));
        double slices = sum(mine, "vte_engine_slices_total", label);
        assertEquals(1, sum(mine, "vte_device_up", label, "device=\"im0\""), mine);
        assertTrue(sum(mine, "jvm_buffer_memory_used_bytes", "id=\"direct\"") > 0, "direct memory");
        assertFalse(mine.contains("_nanos"), "base units only");
        // a gauge per rail used (im0 to each of the node's two devices), 1 while usable
        Await.until(
            "both rails up in the scrape",
            WAIT,
            () -> railsUp(metrics, label) == 2 && railGauges(metrics, label) == 2);
        engine.diagnostics().faultInjector().orElseThrow().portDown("im0");
        Await.until(
            "both rails down in the scrape after im0's port went down",
            WAIT,
            () -> railsUp(metrics, label) == 0 && railGauges(metrics, label) == 2);
        engine.diagnostics().faultInjector().orElseThrow().portUp("im0");

        String served = node.get("/metrics");
        String node1 = "engine=\"served-node\"";
        assertEquals(
            WRITES * (double) BLOCK,
            sum(served, "vte_engine_served_bytes_total", "opcode=\"WRITE\"", node1),
            served);
        assertEquals(
            READS * (double) BLOCK,
            sum(served, "vte_engine_served_bytes_total", "opcode=\"READ\"", node1),
            served);
        assertEquals(slices, sum(served, "vte_engine_served_slices_total", node1), served);
        assertEquals(2, sum(served, "vte_device_up", node1), served);
        assertFalse(served.contains("_nanos"), "base units only");
        node.get("/metrics");
        assertFalse(node.output().contains("WARN"), "no WARN at start or scrape: " + node.output());
      } finally {
        Await.result(engine.close(), WAIT);
        Await.result(metrics.vertx().close(), WAIT);
        metrics.registry().close();
      }
    }
  }

  private static double railsUp(VteMetrics metrics, String label) {
    return sum(metrics.registry().scrape(), "vte_rail_up", label, "device=\"im0\"");
  }

  private static long railGauges(VteMetrics metrics, String label) {
    return metrics
        .registry()
        .scrape()
        .lines()
        .filter(l -> l.startsWith("vte_rail_up{") && l.contains(label))
        .count();
  }

  private static BatchResult submit(TransferEngine engine, List<TransferRequest> requests) {
    return Await.result(engine.submit(requests, new TransferOptions()).result(), WAIT);
  }

  /**
   * @return the sum of the samples of {@code name} whose labels contain every one of {@code labels}
   */
  private static double sum(String scrape, String name, String... labels) {
    Matcher m =
        Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? (\\S+)$").matcher(scrape);
    double total = 0;
    while (m.find()) {
      String l = m.group(1) == null ? "" : m.group(1);
      boolean all = true;
      for (String label : labels) {
        all &= l.contains(label);
      }
      if (all) {
        total += Double.parseDouble(m.group(2));
      }
    }
    return total;
  }
}
