package io.vte.it;

import static io.vte.it.ScenarioFigures.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 7 scenario 5: one engine against 8 peers of 4 devices each (one node process holding the 8
 * peer engines), every first transfer submitted at once.
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class ConnectionStormTest {

  private static final int PEERS = 8;
  private static final int CHUNK = 1 << 20;
  private static final int REQUESTS = 4;

  @Test
  void oneEngineAgainstEightPeersAllFirstTransfersAtOnce() throws Exception {
    try (NodeProcess peers =
            NodeProcess.start(
                "storm", "firstIp=20", "engines=" + PEERS, "buffer=" + (REQUESTS * CHUNK));
        LocalEngines local = new LocalEngines()) {
      TransferEngine engine = local.start(LocalEngines.options("hub", 2, null, 0));
      RegisteredBuffer source = local.register(engine, REQUESTS * CHUNK);
      Pattern.fill(source.address(), REQUESTS * CHUNK, 55);
      List<SegmentHandle> segments = new ArrayList<>();
      for (int p = 0; p < PEERS; p++) {
        segments.add(
            Await.result(
                engine.openSegment(peers.ready(p).getString("server")), LocalEngines.WAIT));
      }
      long before = EngineStats.of(engine).handshakes();

      long t0 = System.nanoTime();
      List<Future<BatchResult>> batches = new ArrayList<>();
      for (int p = 0; p < PEERS; p++) {
        long remote = peers.ready(p).getLong("address");
        List<TransferRequest> requests = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
          requests.add(
              TransferRequest.write(
                  source, (long) i * CHUNK, segments.get(p), remote + (long) i * CHUNK, CHUNK));
        }
        batches.add(
            engine
                .submit(requests, new TransferOptions().setDeadline(Duration.ofSeconds(30)))
                .result());
      }
      long failed = 0;
      for (Future<BatchResult> f : batches) {
        BatchResult r = Await.result(f, LocalEngines.WAIT);
        failed +=
            r.requests().stream()
                .filter(q -> q.status() != io.vte.api.RequestStatus.COMPLETED)
                .count();
      }
      long elapsed = System.nanoTime() - t0;
      EngineStats stats = EngineStats.of(engine);
      long handshakes = stats.handshakes() - before;
      ReliabilityReport.record(
          new ScenarioFigures(
              "5 connection storm 1 x 8 peers x 4 devices",
              (long) PEERS * REQUESTS,
              failed,
              ms(elapsed),
              ms(stats.pollGapP999Nanos()),
              Double.NaN,
              String.format(
                  "%d handshakes in %.0f ms = %.0f/s, %d failed; endpoints %d alive, %d retired, %d evicted",
                  handshakes,
                  ms(elapsed),
                  handshakes / (elapsed / 1e9),
                  stats.handshakesFailed(),
                  stats.endpointsAlive(),
                  stats.endpointsRetired(),
                  stats.endpointsEvicted())));
      assertEquals(0, failed, "every first transfer completes");
      assertEquals(0, stats.handshakesFailed(), "every handshake succeeds");
      assertTrue(
          handshakes >= PEERS, "at least one endpoint per peer was established: " + handshakes);
      long paths = (long) LocalEngines.DEVICES * PEERS * LocalEngines.DEVICES;
      assertTrue(
          stats.endpointsAlive() >= PEERS && stats.endpointsAlive() <= paths,
          "at most one live endpoint per (local device, peer device) path: "
              + stats.endpointsAlive()
              + " of "
              + paths);
      long expected = Pattern.crc(source.address(), REQUESTS * CHUNK);
      for (int p = 0; p < PEERS; p++) {
        assertEquals(expected, peers.crc(p), "peer " + p + " holds the bytes written");
      }
    }
    assertTrue(
        ProcessHandle.current().children().noneMatch(ProcessHandle::isAlive),
        "no orphan node process");
  }
}
