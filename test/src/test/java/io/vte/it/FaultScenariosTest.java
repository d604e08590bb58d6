package io.vte.it;

import static io.vte.it.ScenarioFigures.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 7 scenarios 1 and 2: NIC faults under continuous 4 MiB writes from an engine in this JVM to
 * an engine in a node process, 4 devices per side, 4 owners per device.
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class FaultScenariosTest {

  static final int CHUNK = 4 << 20;
  static final int SLOTS = 4;

  /** Scenario 2: how long the rail flaps. */
  static final Duration RUN = Duration.ofSeconds(20);

  /**
   * Scenarios 1a/1b: port down at 5 s, up at 12 s, then 4 s of writes on all devices again (8 s
   * before: the recovery figure, 500 ms windows, needs 2 s after the up to be read beside its
   * kernel twin's 2 s target, and the rest only repeated the same writes).
   */
  static final Duration NIC_RUN = Duration.ofSeconds(16);

  static final Duration REQUEST_DEADLINE = Duration.ofSeconds(30);
  static final long MAX_LATENCY_NANOS = Duration.ofSeconds(5).toNanos();

  private LocalEngines local;
  private NodeProcess node;
  private TransferEngine sender;
  private RegisteredBuffer source;
  private SegmentHandle segment;
  private CrcClient receiver;

  @BeforeEach
  void start() throws Exception {
    node = NodeProcess.start("recv", "firstIp=10", "buffer=" + (SLOTS * CHUNK));
    local = new LocalEngines();
    sender = local.start(LocalEngines.options("send", 2, null, 0));
    source = local.register(sender, SLOTS * CHUNK);
    segment = Await.result(sender.openSegment(node.server()), LocalEngines.WAIT);
    receiver = new CrcClient(node.crcServer());
  }

  @AfterEach
  void stop() throws Exception {
    try {
      if (receiver != null) {
        receiver.close();
      }
      local.close();
    } finally {
      node.close();
      assertTrue(
          ProcessHandle.current().children().noneMatch(ProcessHandle::isAlive),
          "no orphan node process");
    }
  }

  private WriteLoad load() {
    return new WriteLoad(sender, source, segment, node.address(), SLOTS, CHUNK, REQUEST_DEADLINE)
        .checkEveryWrite(receiver);
  }

  /**
   * Short undisturbed runs until one is clean and every path has its endpoint on both sides, before
   * the scenario starts (a cold node on a loaded machine may need more than one handshake
   * deadline); returns the endpoint counts (sender, receiver).
   */
  private long[] warmUp(WriteLoad load) throws Exception {
    String[] last = {null};
    try {
      // Every path of the full mesh: a path whose first handshake timed out is paused for the
      // hold-down, and a
      // round can be clean without it.
      long paths = (long) sender.diagnostics().devices().size() * segment.devices().size();
      Await.until(
          "a clean warm-up round with an endpoint on each of " + paths + " paths",
          Duration.ofSeconds(90),
          () -> {
            try {
              WriteLoad.Result r = load.run(Duration.ofSeconds(2), List.of());
              last[0] =
                  r.failureDetails()
                      + ", endpoints "
                      + EngineStats.of(sender).endpointsAlive()
                      + "/"
                      + node.stats().endpointsAlive();
              return r.failures() == 0
                  && EngineStats.of(sender).endpointsAlive() == paths
                  && node.stats().endpointsAlive() == paths;
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last round: " + last[0], e);
    }
    return new long[] {EngineStats.of(sender).endpointsAlive(), node.stats().endpointsAlive()};
  }

  @Test
  void senderNicDownAt5sUpAt12s() throws Exception {
    nicDownAndUp("1a sender NIC down 5-12 s", true);
  }

  @Test
  void receiverNicDownAt5sUpAt12s() throws Exception {
    nicDownAndUp("1b receiver NIC down 5-12 s", false);
  }

  @Tag("soak")
  @RepeatedTest(5)
  void senderNicDownAt5sUpAt12sRepeated() throws Exception {
    nicDownAndUp("1a soak sender NIC down 5-12 s", true);
  }

  @Tag("soak")
  @RepeatedTest(5)
  void receiverNicDownAt5sUpAt12sRepeated() throws Exception {
    nicDownAndUp("1b soak receiver NIC down 5-12 s", false);
  }

  private void nicDownAndUp(String name, boolean senderSide) throws Exception {
    WallClockTargets.retryOnceOnMiss(() -> nicDownAndUpOnce(name, senderSide));
  }

  private void nicDownAndUpOnce(String name, boolean senderSide) throws Exception {
    WriteLoad load = load();
    long[] baseline = warmUp(load);
    List<WriteLoad.Fault> faults =
        List.of(
            new WriteLoad.Fault(Duration.ofSeconds(5), "down", () -> port(senderSide, 0, false)),
            new WriteLoad.Fault(Duration.ofSeconds(12), "up", () -> port(senderSide, 0, true)));
    WriteLoad.Result r = load.run(NIC_RUN, faults);
    EngineStats stats = EngineStats.of(sender);
    // Measured as on kernel links (KernelLinkScenariosTest), to be read beside them; not a target
    // here.
    long down = r.faultTime("down");
    long up = r.faultTime("up");
    double before = r.throughput(r.start + Duration.ofSeconds(1).toNanos(), down);
    long recovery = r.recoveryNanos(up, 0.9 * before, Duration.ofMillis(500).toNanos());
    ScenarioFigures figures =
        new ScenarioFigures(
            name,
            r.transfers(),
            r.failures(),
            ms(r.maxLatencyNanos()),
            ms(stats.pollGapP999Nanos()),
            recovery < 0 ? Double.NaN : ms(recovery),
            String.format(
                "%.0f MiB/s (before %.0f, port down %.0f, after up %.0f), endpoints %d/%d (baseline %d/%d), %s",
                r.throughput() / (1 << 20),
                before / (1 << 20),
                r.throughput(down, up) / (1 << 20),
                r.throughput(up, r.end()) / (1 << 20),
                stats.endpointsAlive(),
                node.stats().endpointsAlive(),
                baseline[0],
                baseline[1],
                r.failureDetails()),
            List.of(maxLatency(r)));
    ReliabilityReport.record(figures);
    assertNoFailure(r);
    r.assertEveryWriteLanded(name);
    assertTrue(r.lastWritesCompleted());
    assertEquals(load.localCrc(), node.crc(0), "the last pattern is byte-exact in the receiver");
    assertEndpointsNoMoreThan(baseline);
    WallClockTargets.require(figures);
  }

  /** Every transfer under 5 s. */
  private static Target maxLatency(WriteLoad.Result r) {
    return Target.below("max latency", ms(r.maxLatencyNanos()), ms(MAX_LATENCY_NANOS));
  }

  /**
   * Zero failed transfers; on failure the message carries both engines' counters for the engine's
   * owners.
   */
  private void assertNoFailure(WriteLoad.Result r) throws Exception {
    if (r.failures() > 0) {
      throw new AssertionError(
          r.failures()
              + " failed transfers: "
              + r.failureDetails()
              + "; sender "
              + EngineStats.of(sender).counters()
              + "; receiver "
              + node.stats().counters());
    }
  }

  /**
   * Endpoints may be re-created on demand, never leaked: both sides return to at most their warm-up
   * count.
   */
  private void assertEndpointsNoMoreThan(long[] baseline) {
    Await.until(
        "sender endpoints back to <= " + baseline[0],
        Duration.ofSeconds(20),
        () -> EngineStats.of(sender).endpointsAlive() <= baseline[0]);
    Await.until(
        "receiver endpoints back to <= " + baseline[1],
        Duration.ofSeconds(20),
        () -> {
          try {
            return node.stats().endpointsAlive() <= baseline[1];
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
  }

  private void port(boolean senderSide, int device, boolean up) throws Exception {
    if (senderSide) {
      String name = sender.diagnostics().devices().get(device).name();
      if (up) {
        LocalEngines.faults(sender).portUp(name);
      } else {
        LocalEngines.faults(sender).portDown(name);
      }
    } else {
      node.request("fault " + (up ? "port-up " : "port-down ") + device, "fault");
    }
  }

  /**
   * Throughput in MiB/s of each 500 ms window from {@code from} to the end of the run, for the
   * recovery notes.
   */
  private static String windows(WriteLoad.Result r, long from) {
    return r.completions.windowsMiB(from, r.end(), Duration.ofMillis(500).toNanos());
  }

  @Test
  void bothNicsOfOneRailFlapEvery500msFor20s() throws Exception {
    oneRailFlapping("2 one rail flapping 500 ms x 20 s");
  }

  @Tag("soak")
  @RepeatedTest(5)
  void bothNicsOfOneRailFlapEvery500msFor20sRepeated() throws Exception {
    oneRailFlapping("2 soak one rail flapping 500 ms x 20 s");
  }

  private void oneRailFlapping(String name) throws Exception {
    WallClockTargets.retryOnceOnMiss(() -> oneRailFlappingOnce(name));
  }

  private void oneRailFlappingOnce(String name) throws Exception {
    WriteLoad load = load();
    long[] baseline = warmUp(load);
    WriteLoad.Result calm = load.run(Duration.ofSeconds(5), List.of());
    assertEquals(0, calm.failures(), "undisturbed run: " + calm.failureDetails());
    calm.assertEveryWriteLanded("undisturbed run");
    double undisturbed = calm.throughput();

    List<WriteLoad.Fault> faults = new ArrayList<>();
    int flaps = (int) (RUN.toMillis() / 500);
    for (int i = 1; i <= flaps; i++) {
      boolean up = i % 2 == 0;
      faults.add(
          new WriteLoad.Fault(
              Duration.ofMillis(500L * i),
              "flap" + i,
              () -> {
                port(true, 1, up);
                port(false, 1, up);
              }));
    }
    WriteLoad.Result r = load.run(RUN.plusSeconds(4), faults);
    long lastFlap = r.faultTime("flap" + flaps);
    long recovery = r.recoveryNanos(lastFlap, 0.9 * undisturbed, Duration.ofMillis(500).toNanos());
    EngineStats stats = EngineStats.of(sender);
    double recoveryMs = recovery < 0 ? Double.NaN : ms(recovery);
    ScenarioFigures figures =
        new ScenarioFigures(
            name,
            r.transfers(),
            r.failures(),
            ms(r.maxLatencyNanos()),
            ms(stats.pollGapP999Nanos()),
            recoveryMs,
            String.format(
                "undisturbed %.0f MiB/s, after last flap %.0f MiB/s (per 500 ms: %s), %s",
                undisturbed / (1 << 20),
                r.throughput(lastFlap, r.end()) / (1 << 20),
                windows(r, lastFlap),
                r.failureDetails()),
            // throughput back to >= 90% of the undisturbed run's within 2 s of the last flap
            List.of(maxLatency(r), Target.atMost("recovery to 90%", recoveryMs, 2000)));
    ReliabilityReport.record(figures);
    assertNoFailure(r);
    r.assertEveryWriteLanded(name);
    assertEquals(load.localCrc(), node.crc(0), "the last pattern is byte-exact in the receiver");
    assertEndpointsNoMoreThan(baseline);
    WallClockTargets.require(figures);
  }
}
