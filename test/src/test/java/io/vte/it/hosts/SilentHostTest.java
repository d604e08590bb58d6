package io.vte.it.hosts;

import static io.vte.it.ScenarioFigures.ms;
import static io.vte.it.hosts.HostLoads.CHUNK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.it.EngineStats;
import io.vte.it.NodeProcess;
import io.vte.it.ReliabilityReport;
import io.vte.it.RemoteLoad;
import io.vte.it.ScenarioFigures;
import io.vte.testkit.TimingTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 11 item 3, the kernel-link twin of loopback scenario 4: three hosts x 4 rail NICs; host 0
 * writes to host 1 and host 2 at once, then host 2's routes to every address of host 0 become
 * blackholes, so host 2 falls silent to host 0 (its packets, ACKs and handshake replies vanish; no
 * RST, no error). Writes to host 2 must fail typed at their deadline while writes to host 1 keep
 * their throughput and host 0's CQ poll gap p99.9 stays under 50 ms.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ReliabilityReport.class)
class SilentHostTest {

  static final int RAILS = 4;
  static final Duration DEADLINE = Duration.ofSeconds(5);
  static final long SLACK_NANOS = Duration.ofSeconds(1).toNanos();
  static final long POLL_GAP_NANOS = Duration.ofMillis(50).toNanos();

  private NetnsHosts hosts;
  private final List<NodeProcess> nodes = new ArrayList<>();

  @BeforeAll
  void start() throws Exception {
    hosts = NetnsHosts.up(3, RAILS);
    try {
      for (int h = 0; h < 3; h++) {
        NetnsHosts.Host host = hosts.host(h);
        nodes.add(
            hosts.startNode(
                host,
                "silent-h" + h,
                "devices=" + String.join(",", host.devices("h" + h)),
                "rpcHost=" + host.mgmt().address(),
                "buffer=" + (h == 0 ? 4096 : HostLoads.SLOTS * CHUNK)));
      }
    } catch (Throwable t) {
      stop();
      throw t;
    }
  }

  @AfterAll
  void stop() throws Exception {
    try {
      for (NodeProcess n : nodes) {
        n.close();
      }
    } finally {
      hosts.close();
    }
  }

  @Test
  void blackholedPeerFailsTypedWhileOthersKeepTheirThroughput() throws Exception {
    TimingTargets.retryOnce("kernel silent host", this::silentHost);
  }

  private List<String> silentHost(int attempt) throws Exception {
    NodeProcess sender = nodes.get(0);
    NodeProcess live = nodes.get(1);
    JsonObject toLive = HostLoads.target(live, 0, CHUNK);
    JsonObject toSilent = HostLoads.target(nodes.get(2), 0, CHUNK);
    HostLoads.warmUp(
        sender, 0, List.of(toLive, toSilent), List.of(live, nodes.get(2)), List.of(0, 0), RAILS);
    RemoteLoad alone =
        RemoteLoad.of(
                HostLoads.run(
                    sender,
                    0,
                    Duration.ofSeconds(6),
                    DEADLINE,
                    List.of(toLive),
                    List.of(),
                    List.of()))
            .get(0);
    assertEquals(0, alone.failures(), "writes to host 1 alone: " + alone.failureDetails());
    alone.assertEveryWriteLanded("writes to host 1 alone");
    List<RemoteLoad> both;
    hosts.blackhole(2, 0, true);
    try {
      both =
          RemoteLoad.of(
              HostLoads.run(
                  sender,
                  0,
                  Duration.ofSeconds(12),
                  DEADLINE,
                  List.of(toLive, toSilent),
                  List.of(),
                  List.of()));
    } finally {
      hosts.blackhole(2, 0, false);
    }
    RemoteLoad r = both.get(0);
    RemoteLoad silent = both.get(1);
    EngineStats stats = HostLoads.stats(sender, 0);
    double ratio = r.throughput() / alone.throughput();
    ReliabilityReport.record(
        new ScenarioFigures(
            "4 kernel silent host beside a live one" + (attempt > 1 ? " (retry)" : ""),
            r.transfers(),
            r.failures(),
            ms(r.maxLatencyNanos()),
            ms(stats.pollGapP999Nanos()),
            Double.NaN,
            String.format(
                "live %.0f MiB/s = %.2fx alone (%.0f); silent host: %d requests, %s, max %.0f ms; poll gap max %.1f ms",
                r.throughput() / (1 << 20),
                ratio,
                alone.throughput() / (1 << 20),
                silent.transfers(),
                silent.causes(),
                ms(silent.maxLatencyNanos()),
                ms(stats.pollGapMaxNanos()))));
    assertEquals(0, r.failures(), "the live host's transfers all complete: " + r.failureDetails());
    r.assertEveryWriteLanded("writes to the live host");
    assertTrue(r.lastWritesCompleted(), "the last write of every live slot completed");
    assertEquals(r.localCrc(), live.crc(0), "live data byte-exact");
    assertTrue(silent.transfers() > 0, "writes to the silent host were made");
    assertEquals(silent.transfers(), silent.failures(), "nothing completes against a silent host");
    assertEquals(
        0, silent.untyped(), "silent-host failures carry an error code: " + silent.firstFailure());
    assertFalse(silent.causes().containsKey("INTERNAL"), "no INTERNAL error: " + silent.causes());
    List<String> misses = new ArrayList<>();
    if (r.maxLatencyNanos() >= Duration.ofSeconds(5).toNanos()) {
      misses.add("a live write took " + ms(r.maxLatencyNanos()) + " ms (target < 5 s)");
    }
    if (ratio < 0.9) {
      misses.add(String.format("live throughput %.2fx of alone (target >= 0.9)", ratio));
    }
    if (silent.maxLatencyNanos() > DEADLINE.toNanos() + SLACK_NANOS) {
      misses.add(
          "a silent-host write ended "
              + ms(silent.maxLatencyNanos())
              + " ms after submission (deadline 5 s + 1 s)");
    }
    if (stats.pollGapP999Nanos() >= POLL_GAP_NANOS) {
      misses.add("CQ poll gap p99.9 " + ms(stats.pollGapP999Nanos()) + " ms (target < 50 ms)");
    }
    return misses;
  }
}
