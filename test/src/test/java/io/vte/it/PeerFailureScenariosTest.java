package io.vte.it;

import static io.vte.it.ScenarioFigures.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 7 scenarios 3, 4 and 6: a peer killed and restarted, a peer that accepts TCP but never
 * answers, and a peer shut down gracefully, each under continuous 4 MiB writes.
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class PeerFailureScenariosTest {

  private static final int CHUNK = FaultScenariosTest.CHUNK;
  private static final int SLOTS = FaultScenariosTest.SLOTS;
  private static final Duration DEADLINE = Duration.ofSeconds(5);
  private static final long SLACK_NANOS = Duration.ofSeconds(1).toNanos();

  private final List<NodeProcess> nodes = new ArrayList<>();
  private final List<CrcClient> receivers = new ArrayList<>();
  private LocalEngines local;
  private TransferEngine sender;
  private RegisteredBuffer source;

  @BeforeEach
  void start() {
    local = new LocalEngines();
    sender = local.start(LocalEngines.options("send", 2, null, 0));
    source = local.register(sender, SLOTS * CHUNK);
  }

  @AfterEach
  void stop() throws Exception {
    try {
      for (CrcClient c : receivers) {
        c.close();
      }
      local.close();
    } finally {
      for (NodeProcess n : nodes) {
        n.close();
      }
      assertTrue(
          ProcessHandle.current().children().noneMatch(ProcessHandle::isAlive),
          "no orphan node process");
    }
  }

  private NodeProcess node(String... args) throws Exception {
    NodeProcess n = NodeProcess.start("peer", args);
    nodes.add(n);
    return n;
  }

  private WriteLoad load(NodeProcess node) {
    SegmentHandle segment = Await.result(sender.openSegment(node.server()), LocalEngines.WAIT);
    return new WriteLoad(sender, source, segment, node.address(), SLOTS, CHUNK, DEADLINE);
  }

  /**
   * A load whose every completed write is checked in the node's memory, for a node that lives
   * through the run (where the node dies, its memory cannot be asked).
   */
  private WriteLoad checkedLoad(NodeProcess node) {
    CrcClient receiver = new CrcClient(node.crcServer());
    receivers.add(receiver);
    return load(node).checkEveryWrite(receiver);
  }

  /**
   * Failures must be typed engine errors naming what went wrong; INTERNAL would be an engine bug.
   */
  private static void assertTyped(WriteLoad.Result r) {
    assertEquals(0, r.untyped(), "every failure carries an error code: " + r.firstFailure());
    assertFalse(
        r.causes().containsKey(ErrorCode.INTERNAL),
        "no INTERNAL error: " + r.example(ErrorCode.INTERNAL));
  }

  /** Every request ends within its deadline, give or take the slack. */
  private static Target endsByDeadline(String figure, long maxLatencyNanos) {
    return Target.atMost(figure, ms(maxLatencyNanos), ms(DEADLINE.toNanos() + SLACK_NANOS));
  }

  @Test
  void peerKilledMidTransferAndRestartedOnTheSameAddress() throws Exception {
    WallClockTargets.retryOnceOnMiss(this::peerKilledAndRestartedOnce);
  }

  private void peerKilledAndRestartedOnce() throws Exception {
    NodeProcess first = node("firstIp=10", "buffer=" + (SLOTS * CHUNK));
    WriteLoad before = load(first);
    before.run(Duration.ofSeconds(1), List.of());
    long endpointsBefore = EngineStats.of(sender).endpointsAlive();
    WriteLoad.Result r =
        before.run(
            Duration.ofSeconds(7),
            List.of(
                new WriteLoad.Fault(
                    Duration.ofSeconds(3),
                    "kill",
                    () -> {
                      first.process().destroyForcibly();
                      assertTrue(
                          first.process().waitFor(10, TimeUnit.SECONDS), "SIGKILL ends the peer");
                    })));
    assertTrue(r.failures() > 0, "requests in flight at the kill and after it fail");
    assertTyped(r);

    List<String> again = first.sameAddressArgs();
    NodeProcess second =
        node("firstIp=10", "buffer=" + (SLOTS * CHUNK), again.get(0), again.get(1));
    assertEquals(first.server(), second.server(), "restarted on the same address");
    long restarted = System.nanoTime();
    WriteLoad after = checkedLoad(second);
    WriteLoad.Result r2 = after.run(Duration.ofSeconds(4), List.of());
    EngineStats stats = EngineStats.of(sender);
    ScenarioFigures figures =
        new ScenarioFigures(
            "3 peer SIGKILL + restart",
            r.transfers() + r2.transfers(),
            r2.failures(),
            ms(Math.max(r.maxLatencyNanos(), r2.maxLatencyNanos())),
            ms(stats.pollGapP999Nanos()),
            r2.firstCompletion() < 0 ? Double.NaN : ms(r2.firstCompletion() - restarted),
            String.format(
                "killed: %s; after restart %d ok; stale replies dropped %d, handshakes failed %d",
                r.failureSummary(),
                r2.transfers() - r2.failures(),
                stats.staleRepliesDropped(),
                stats.handshakesFailed()),
            List.of(endsByDeadline("max latency around the kill", r.maxLatencyNanos())));
    ReliabilityReport.record(figures);
    assertEquals(
        0, r2.failures(), "new transfers succeed after the restart: " + r2.failureDetails());
    r2.assertEveryWriteLanded("writes after the restart");
    assertEquals(after.localCrc(), second.crc(0), "data written after the restart is byte-exact");
    Await.until(
        "endpoints to the dead process are retired, not kept beside the new ones",
        Duration.ofSeconds(20),
        () -> EngineStats.of(sender).endpointsAlive() <= endpointsBefore);
    WallClockTargets.require(figures);
  }

  @Test
  void silentPeerDoesNotStallOtherPeersOnTheSameOwners() throws Exception {
    WallClockTargets.retryOnceOnMiss(this::silentPeerBesideALiveOneOnce);
  }

  private void silentPeerBesideALiveOneOnce() throws Exception {
    NodeProcess live = node("firstIp=10", "buffer=" + (SLOTS * CHUNK));
    WriteLoad load = checkedLoad(live);
    load.run(Duration.ofSeconds(1), List.of());
    try (SilentPeer silent = SilentPeer.start(local.vertx())) {
      SegmentHandle dead = Await.result(sender.openSegment(silent.serverName()), LocalEngines.WAIT);
      AtomicBoolean running = new AtomicBoolean(true);
      Map<RequestStatus, Integer> deadOutcomes = new EnumMap<>(RequestStatus.class);
      Map<ErrorCode, Integer> deadCauses = new EnumMap<>(ErrorCode.class);
      long[] deadMaxLatency = new long[1];
      Thread deadTraffic =
          new Thread(
              () -> {
                while (running.get()) {
                  List<TransferRequest> requests = new ArrayList<>();
                  for (int i = 0; i < 4; i++) {
                    requests.add(
                        TransferRequest.write(
                            source, 0, dead, SilentPeer.ADDRESS + (long) i * CHUNK, CHUNK));
                  }
                  long t0 = System.nanoTime();
                  BatchResult b =
                      Await.result(
                          sender
                              .submit(requests, new TransferOptions().setDeadline(DEADLINE))
                              .result(),
                          LocalEngines.WAIT);
                  deadMaxLatency[0] = Math.max(deadMaxLatency[0], System.nanoTime() - t0);
                  for (RequestResult rr : b.requests()) {
                    deadOutcomes.merge(rr.status(), 1, Integer::sum);
                    deadCauses.merge(
                        rr.cause() == null ? ErrorCode.INTERNAL : rr.cause().code(),
                        1,
                        Integer::sum);
                  }
                }
              },
              "dead-peer-traffic");
      deadTraffic.start();
      WriteLoad.Result r;
      try {
        r = load.run(Duration.ofSeconds(12), List.of());
      } finally {
        running.set(false);
        deadTraffic.join(LocalEngines.WAIT.toMillis());
      }
      assertFalse(deadTraffic.isAlive(), "dead-peer requests end");
      EngineStats stats = EngineStats.of(sender);
      ScenarioFigures figures =
          new ScenarioFigures(
              "4 silent peer beside a live one",
              r.transfers(),
              r.failures(),
              ms(r.maxLatencyNanos()),
              ms(stats.pollGapP999Nanos()),
              Double.NaN,
              String.format(
                  "%.0f MiB/s live; silent peer: %d Connects unanswered, requests %s %s, max %.0f ms; poll gap max %.1f ms",
                  r.throughput() / (1 << 20),
                  silent.connects(),
                  deadOutcomes,
                  deadCauses,
                  ms(deadMaxLatency[0]),
                  ms(stats.pollGapMaxNanos())),
              List.of(
                  Target.below(
                      "live max latency",
                      ms(r.maxLatencyNanos()),
                      ms(FaultScenariosTest.MAX_LATENCY_NANOS)),
                  endsByDeadline("silent-peer max latency", deadMaxLatency[0]),
                  Target.below("poll gap p99.9", ms(stats.pollGapP999Nanos()), 50)));
      ReliabilityReport.record(figures);
      assertEquals(
          0, r.failures(), "the live peer's transfers all complete: " + r.failureDetails());
      r.assertEveryWriteLanded("writes to the live peer");
      assertEquals(load.localCrc(), live.crc(0), "live data byte-exact");
      assertTrue(silent.connects() > 0, "the engine did try to connect to the silent peer");
      assertFalse(
          deadOutcomes.containsKey(RequestStatus.COMPLETED),
          "nothing completes against a silent peer");
      assertFalse(
          deadCauses.containsKey(ErrorCode.INTERNAL),
          "silent-peer failures are typed: " + deadCauses);
      WallClockTargets.require(figures);
    }
  }

  @Test
  void gracefulShutdownUnderLoad() throws Exception {
    WallClockTargets.retryOnceOnMiss(this::gracefulShutdownUnderLoadOnce);
  }

  private void gracefulShutdownUnderLoadOnce() throws Exception {
    NodeProcess node = node("firstIp=10", "buffer=" + (SLOTS * CHUNK));
    WriteLoad load = load(node);
    long[] exitNanos = {-1};
    WriteLoad.Result r =
        load.run(
            Duration.ofSeconds(6),
            List.of(
                new WriteLoad.Fault(
                    Duration.ofSeconds(2),
                    "sigterm",
                    () -> {
                      long t0 = System.nanoTime();
                      // Through the handle: Process.destroy() would also close our end of its pipes
                      // and hide its last words.
                      node.process().toHandle().destroy();
                      if (node.process().waitFor(10, TimeUnit.SECONDS)) {
                        exitNanos[0] = System.nanoTime() - t0;
                      }
                    })));
    JsonObject terminated;
    try {
      terminated = node.expect("terminated", Duration.ofSeconds(5));
    } catch (AssertionError e) {
      terminated = new JsonObject().put("missing", e.getMessage());
    }
    double exitMs = exitNanos[0] < 0 ? Double.NaN : ms(exitNanos[0]);
    ScenarioFigures figures =
        new ScenarioFigures(
            "6 peer SIGTERM under load",
            r.transfers(),
            r.failures(),
            ms(r.maxLatencyNanos()),
            Double.NaN,
            exitMs,
            String.format(
                "exit %s in %.0f ms, peer saw %s, node said %s",
                node.process().isAlive() ? "none" : node.process().exitValue(),
                ms(exitNanos[0]),
                r.failureSummary(),
                terminated.encode()),
            List.of(
                Target.atMost("exit after SIGTERM", exitMs, 5000),
                endsByDeadline("max latency", r.maxLatencyNanos())));
    ReliabilityReport.record(figures);
    assertEquals(
        Boolean.FALSE,
        terminated.getBoolean("changedAfterUnregister"),
        "the node reports no data written after the region was unregistered: "
            + terminated.encode());
    assertTrue(
        node.process().waitFor(LocalEngines.WAIT.toMillis(), TimeUnit.MILLISECONDS),
        "the node exits after SIGTERM");
    assertEquals(0, node.process().exitValue(), "SIGTERM is a clean exit");
    assertTrue(r.failures() > 0, "the writer saw the peer go away");
    assertTyped(r);
    WallClockTargets.require(figures);
  }
}
