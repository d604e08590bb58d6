package io.vte.it.hosts;

import static io.vte.it.ScenarioFigures.ms;
import static io.vte.it.hosts.HostLoads.CHUNK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.it.EngineStats;
import io.vte.it.NodeProcess;
import io.vte.it.ReliabilityReport;
import io.vte.it.RemoteLoad;
import io.vte.it.ScenarioFigures;
import io.vte.testkit.Await;
import io.vte.testkit.TimingTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 11 item 3 on kernel links: two hosts (network namespaces) with 4 rail NICs each, an engine
 * in a node process on each, faults made by the kernel ({@code ip link set} on a host's veth, a
 * {@code tbf} qdisc) instead of the soft-verbs injector. The NIC-down scenarios report the same
 * columns as their loopback twins ({@code FaultScenariosTest} 1a/1b), so both can be read side by
 * side.
 *
 * <p>Each node runs five engines: engine 0 on all four rails (4 owners per device), engine 1 + i on
 * rail i alone (for the per-rail baselines of the tbf scenario).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(ReliabilityReport.class)
class KernelLinkScenariosTest {

  static final int RAILS = 4;

  /**
   * Link down at 5 s, up at 12 s, then 4 s (8 s before): both targets after link-up are 2 s, judged
   * on 500 ms windows and 100 ms counter samples inside them; a recovery later than that is a miss
   * whether the run still sees it or not.
   */
  static final Duration RUN = Duration.ofSeconds(16);

  static final Duration REQUEST_DEADLINE = Duration.ofSeconds(30);
  static final Duration MAX_LATENCY = Duration.ofSeconds(5);
  static final Duration RECOVERY = Duration.ofSeconds(2);
  static final long WINDOW = Duration.ofMillis(500).toNanos();

  /**
   * tbf rates: every rail shaped, so the fabric and not the CPU sets the pace; rail 0 at a quarter.
   * Low enough that four rails together leave the CPU idle part of the time, beside a CPU hog too:
   * at 240mbit a rail, four together (about 110 MiB/s) kept both cores busy, half of it in softirq,
   * and measured 0.74-0.87x the sum of the rails alone with four equal rails.
   */
  static final String RAIL_RATE = "120mbit";

  static final String SLOW_RATE = "30mbit";
  static final int TBF_CHUNK = 1 << 20;

  /** Time for packets queued at the moment of link-down to leave, and for a link command to run. */
  static final long SETTLE = Duration.ofMillis(200).toNanos();

  /**
   * One slice: less than this through a NIC that is down is noise (ARP, a last frame), not payload.
   */
  static final long SLICE = 64 << 10;

  private NetnsHosts hosts;
  private NodeProcess sender;
  private NodeProcess receiver;

  @BeforeAll
  void start() throws Exception {
    hosts = NetnsHosts.up(2, RAILS);
    try {
      sender = node(0, "kl-send", "buffer=4096");
      receiver = node(1, "kl-recv", "buffer=" + HostLoads.SLOTS * CHUNK);
    } catch (Throwable t) {
      stop();
      throw t;
    }
  }

  /** A node on host h: engine 0 on every rail, engine 1 + i on rail i alone. */
  private NodeProcess node(int h, String name, String buffer) throws Exception {
    NetnsHosts.Host host = hosts.host(h);
    List<String> all = host.devices("h" + h + "e0");
    StringBuilder devices = new StringBuilder(String.join(",", all));
    for (int i = 0; i < RAILS; i++) {
      devices.append('/').append(host.devices("h" + h + "e" + (i + 1)).get(i));
    }
    return hosts.startNode(
        host, name, "devices=" + devices, "rpcHost=" + host.mgmt().address(), buffer);
  }

  @AfterAll
  void stop() throws Exception {
    try {
      for (NodeProcess n : new NodeProcess[] {sender, receiver}) {
        if (n != null) {
          n.close();
        }
      }
    } finally {
      hosts.close();
    }
  }

  @Test
  void senderNicDownAt5sUpAt12s() throws Exception {
    TimingTargets.retryOnce(
        "kernel sender NIC down",
        attempt -> nicDownAndUp("1a kernel sender NIC down 5-12 s", 0, attempt));
  }

  @Test
  void receiverNicDownAt5sUpAt12s() throws Exception {
    TimingTargets.retryOnce(
        "kernel receiver NIC down",
        attempt -> nicDownAndUp("1b kernel receiver NIC down 5-12 s", 1, attempt));
  }

  @Tag("soak")
  @RepeatedTest(5)
  void senderNicDownAt5sUpAt12sRepeated() throws Exception {
    TimingTargets.retryOnce(
        "kernel sender NIC down",
        attempt -> nicDownAndUp("1a soak kernel sender NIC down", 0, attempt));
  }

  @Tag("soak")
  @RepeatedTest(5)
  void receiverNicDownAt5sUpAt12sRepeated() throws Exception {
    TimingTargets.retryOnce(
        "kernel receiver NIC down",
        attempt -> nicDownAndUp("1b soak kernel receiver NIC down", 1, attempt));
  }

  /**
   * 16 s of 4 MiB writes from engine 0 of host 0 to engine 0 of host 1; at 5 s host {@code
   * faultHost}'s rail NIC 0 is set down inside its namespace, at 12 s up again.
   */
  private List<String> nicDownAndUp(String name, int faultHost, int attempt) throws Exception {
    JsonObject target = HostLoads.target(receiver, 0, CHUNK);
    long[] baseline =
        HostLoads.warmUp(sender, 0, List.of(target), List.of(receiver), List.of(0), RAILS);
    // The faulted NIC's payload: what the sender's NIC 0 sends, or what the receiver's NIC 0
    // receives.
    JsonObject watch =
        faultHost == 0
            ? HostLoads.watch("nic0", sender, hosts.host(0).nics().get(0).iface(), "tx")
            : HostLoads.watch("nic0", receiver, hosts.host(1).nics().get(0).iface(), "rx");
    String h = Integer.toString(faultHost);
    JsonObject answer;
    try {
      answer =
          HostLoads.run(
              sender,
              0,
              RUN,
              REQUEST_DEADLINE,
              List.of(target),
              List.of(
                  HostLoads.fault(
                      Duration.ofSeconds(5), "down", hosts.command("link", h, "0", "down")),
                  HostLoads.fault(
                      Duration.ofSeconds(12), "up", hosts.command("link", h, "0", "up"))),
              List.of(watch));
    } finally {
      hosts.link(
          faultHost, 0, true); // whatever happened, the next scenario starts with every link up
    }
    RemoteLoad r = RemoteLoad.of(answer).get(0);
    long down = r.faultTime("down");
    long up = r.faultTime("up");
    double before = r.throughput(Duration.ofSeconds(1).toNanos(), down);
    long recovery = r.recoveryNanos(up, 0.9 * before, WINDOW);
    List<long[]> nic0 = RemoteLoad.counterSamples(answer, r.startNanos(), "nic0");
    long railBack = railZeroBack(nic0, up);
    // The up command starts before its time is taken (when it has returned): leave it a margin too.
    long whileDown = bytesBetween(nic0, down + SETTLE, up - SETTLE);
    EngineStats s = HostLoads.stats(sender, 0);
    EngineStats rs = HostLoads.stats(receiver, 0);
    ReliabilityReport.record(
        new ScenarioFigures(
            name + (attempt > 1 ? " (retry)" : ""),
            r.transfers(),
            r.failures(),
            ms(r.maxLatencyNanos()),
            ms(s.pollGapP999Nanos()),
            recovery < 0 ? Double.NaN : ms(recovery),
            String.format(
                "%.0f MiB/s (before %.0f, link down %.0f, after up %.0f; per 500 ms from link-up: %s), rail 0 "
                    + "payload again %s ms after link-up (%d B while down), endpoints %d/%d (baseline %d/%d), %s",
                r.throughput() / (1 << 20),
                before / (1 << 20),
                r.throughput(down, up) / (1 << 20),
                r.throughput(up, r.end()) / (1 << 20),
                r.windowsMiB(up),
                railBack < 0 ? "never" : String.format("%.0f", ms(railBack)),
                whileDown,
                s.endpointsAlive(),
                rs.endpointsAlive(),
                baseline[0],
                baseline[1],
                r.failureDetails())));
    if (r.failures() > 0) {
      throw new AssertionError(
          r.failures()
              + " failed transfers: "
              + r.failureDetails()
              + "; sender "
              + s.counters()
              + "; receiver "
              + rs.counters());
    }
    assertTrue(
        whileDown >= 0 && whileDown < SLICE,
        "the kernel cut host " + faultHost + "'s NIC 0: " + whileDown + " B through it while down");
    r.assertEveryWriteLanded(name);
    assertTrue(r.lastWritesCompleted(), "the last write of every slot completed");
    assertEquals(r.localCrc(), receiver.crc(0), "the last pattern is byte-exact in the receiver");
    Await.until(
        "endpoints back to at most the warm-up count " + baseline[0] + "/" + baseline[1],
        Duration.ofSeconds(20),
        () -> {
          try {
            return HostLoads.stats(sender, 0).endpointsAlive() <= baseline[0]
                && HostLoads.stats(receiver, 0).endpointsAlive() <= baseline[1];
          } catch (Exception e) {
            throw new AssertionError(e);
          }
        });
    List<String> misses = new ArrayList<>();
    if (r.maxLatencyNanos() >= MAX_LATENCY.toNanos()) {
      misses.add("a write took " + ms(r.maxLatencyNanos()) + " ms (target < 5 s)");
    }
    if (recovery < 0 || recovery > RECOVERY.toNanos()) {
      misses.add(
          "throughput back to 90% of "
              + Math.round(before / (1 << 20))
              + " MiB/s "
              + ms(recovery)
              + " ms after link-up (target <= 2 s)");
    }
    if (railBack < 0 || railBack > RECOVERY.toNanos()) {
      misses.add(
          "rail 0 carried payload again " + ms(railBack) + " ms after link-up (target <= 2 s)");
    }
    return misses;
  }

  /**
   * @param samples byte counter samples, [nanos since start, bytes]
   * @param from window start
   * @param to window end
   * @return bytes counted between the last sample at or before {@code from} and the last at or
   *     before {@code to}, -1 if the samples do not cover the window
   */
  private static long bytesBetween(List<long[]> samples, long from, long to) {
    long first = -1;
    long last = -1;
    for (long[] s : samples) {
      if (s[1] < 0) {
        return -1;
      }
      if (s[0] <= from) {
        first = s[1];
      }
      if (s[0] <= to) {
        last = s[1];
      }
    }
    return first < 0 || last < 0 || to - from < SETTLE ? -1 : last - first;
  }

  /**
   * @param samples the faulted NIC's payload bytes, [nanos since start, bytes]
   * @param up when the link came up
   * @return nanoseconds from link-up until NIC 0 had carried one more request's worth of bytes, or
   *     -1 if never
   */
  private static long railZeroBack(List<long[]> samples, long up) {
    long base = -1;
    for (long[] s : samples) {
      if (s[0] < up || s[1] < 0) {
        continue;
      }
      if (base < 0) {
        base = s[1];
      } else if (s[1] - base >= CHUNK) {
        return s[0] - up;
      }
    }
    return -1;
  }

  /**
   * Every rail NIC of the sender shaped with tbf, rail 0 to a quarter of the others: engine 0
   * across all rails must deliver at least 0.9x the sum of what each rail delivers alone (engine 1
   * + i to engine 1 + i), i.e. the slow rail must not hold batches back. The engine gives each
   * slice the rail where it is expected to finish first (backlog x measured rate), so the slow rail
   * gets a quarter of a fast rail's share; round-robin gave 0.27-0.39x. Like for like, each rail
   * has the same bytes in flight in both runs: {@link HostLoads#SLOTS} requests alone, RAILS times
   * as many together (with only SLOTS together, a CPU hog's late wake-ups of the load thread
   * drained the rails' queues and the figure fell to 0.86-0.91x while the engine's split was
   * right).
   */
  @Test
  void slowRailDoesNotHoldBatchesBack() throws Exception {
    TimingTargets.retryOnce(
        "kernel tbf slow rail",
        attempt -> {
          for (int i = 0; i < RAILS; i++) {
            hosts.shape(0, i, i == 0 ? SLOW_RATE : RAIL_RATE);
          }
          try {
            double[] alone = new double[RAILS];
            double sum = 0;
            for (int i = 0; i < RAILS; i++) {
              alone[i] = shapedThroughput(1 + i, 1, HostLoads.SLOTS, Duration.ofSeconds(4));
              sum += alone[i];
            }
            double together =
                shapedThroughput(0, RAILS, RAILS * HostLoads.SLOTS, Duration.ofSeconds(6));
            double ratio = together / sum;
            StringBuilder each = new StringBuilder();
            for (double a : alone) {
              each.append(each.length() == 0 ? "" : " + ").append(Math.round(a / (1 << 20)));
            }
            ReliabilityReport.record(
                new ScenarioFigures(
                    "kernel tbf: rail 0 at 1/4" + (attempt > 1 ? " (retry)" : ""),
                    0,
                    0,
                    Double.NaN,
                    ms(HostLoads.stats(sender, 0).pollGapP999Nanos()),
                    Double.NaN,
                    String.format(
                        "rails alone %s = %.0f MiB/s (tbf %s, rail 0 %s), all rails together %.0f MiB/s = %.2fx",
                        each, sum / (1 << 20), RAIL_RATE, SLOW_RATE, together / (1 << 20), ratio)));
            return ratio >= 0.9
                ? List.of()
                : List.of(
                    String.format(
                        "together %.2fx the sum of the rails alone (target >= 0.9)", ratio));
          } finally {
            for (int i = 0; i < RAILS; i++) {
              hosts.shape(0, i, null);
            }
          }
        });
  }

  /**
   * Bytes per second from engine {@code engine} of the sender to the same engine of the receiver,
   * {@code slots} requests of {@value #TBF_CHUNK} bytes in flight; no failure.
   */
  private double shapedThroughput(int engine, long paths, int slots, Duration run)
      throws Exception {
    JsonObject target = HostLoads.target(receiver, engine, TBF_CHUNK, slots);
    HostLoads.warmUp(sender, engine, List.of(target), List.of(receiver), List.of(engine), paths);
    RemoteLoad r =
        RemoteLoad.of(
                HostLoads.run(
                    sender, engine, run, REQUEST_DEADLINE, List.of(target), List.of(), List.of()))
            .get(0);
    assertEquals(
        0,
        r.failures(),
        "shaped writes on engine " + engine + " all complete: " + r.failureDetails());
    r.assertEveryWriteLanded("shaped writes on engine " + engine);
    return r.throughput();
  }
}
