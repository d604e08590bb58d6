package io.vte.it.hosts;

import static io.vte.it.ScenarioFigures.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonObject;
import io.vte.it.NodeProcess;
import io.vte.it.ReliabilityReport;
import io.vte.it.RemoteLoad;
import io.vte.it.ScenarioFigures;
import io.vte.testkit.TimingTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 41 item 1 on kernel links: three hosts (network namespaces) with 3 rail NICs each, an
 * engine in a node process on each, QP timeout and retries at the engine's defaults, every node
 * writing to both others while rail NICs go down and up inside their namespaces ({@code ip link
 * set}), one at a time, so every pair keeps a healthy rail. A host whose NIC is down fails its own
 * sends at once, but its peers see only silence: without pushed device states their slices on that
 * NIC wait out the QP failure time (about 8 s). Every request must complete, each write checked in
 * its receiver, within 1 s plus its transfer time (four times the median of a fault-free warm-up).
 * Reports p50, p99 and max of the request latencies.
 */
@ExtendWith(ReliabilityReport.class)
class RemoteLinkFlapMeshTest {

  static final int HOSTS = 3;
  static final int RAILS = 3;
  static final int CHUNK = 1 << 20;
  static final int SLOTS = 2;
  static final Duration RUN = Duration.ofSeconds(Long.getLong("vte.it.linkFlapSeconds", 16));
  static final Duration WARM_UP = Duration.ofSeconds(3);
  static final Duration REQUEST_DEADLINE = Duration.ofSeconds(30);
  static final long BUDGET_NANOS = Duration.ofSeconds(1).toNanos();

  @Test
  void remoteLinkFlapsCostNoQpTimeout() throws Exception {
    NetnsHosts.assumeAvailable();
    List<NodeProcess> nodes = new ArrayList<>();
    ExecutorService runners = Executors.newFixedThreadPool(HOSTS);
    try (NetnsHosts hosts = NetnsHosts.up(HOSTS, RAILS)) {
      for (int h = 0; h < HOSTS; h++) {
        NetnsHosts.Host host = hosts.host(h);
        nodes.add(
            hosts.startNode(
                host,
                "lf" + h,
                "devices=" + String.join(",", host.devices("h" + h + "e0")),
                "rpcHost=" + host.mgmt().address(),
                "buffer=" + HOSTS * SLOTS * CHUNK,
                "qp=default"));
      }
      run(nodes, runners, WARM_UP, List.of()); // cold JVMs: handshakes, JIT
      long transferNanos = 4 * median(run(nodes, runners, WARM_UP, List.of()));
      TimingTargets.retryOnce(
          "kernel-link flap mesh",
          attempt -> {
            List<JsonObject> faults = new ArrayList<>();
            List<String> log = new ArrayList<>();
            SplittableRandom random = new SplittableRandom(41);
            int n = 0;
            for (long at = 1500; at < RUN.toMillis() - 2000; at += 1200 + random.nextInt(600)) {
              String h = Integer.toString(random.nextInt(HOSTS));
              String nic = Integer.toString(random.nextInt(RAILS));
              long up = at + 400 + random.nextInt(500);
              faults.add(
                  HostLoads.fault(
                      Duration.ofMillis(at), "down" + n, hosts.command("link", h, nic, "down")));
              faults.add(
                  HostLoads.fault(
                      Duration.ofMillis(up), "up" + n, hosts.command("link", h, nic, "up")));
              log.add("h" + h + "n" + nic + " " + at + "-" + up + " ms");
              n++;
            }
            List<RemoteLoad> flapped;
            try {
              flapped = run(nodes, runners, RUN, faults);
            } finally {
              for (int h = 0; h < HOSTS; h++) {
                for (int i = 0; i < RAILS; i++) {
                  hosts.link(h, i, true);
                }
              }
            }
            long worst = 0;
            long worstP99 = 0;
            long transfers = 0;
            long failures = 0;
            long lost = 0;
            List<Long> p50s = new ArrayList<>();
            for (RemoteLoad r : flapped) {
              worst = Math.max(worst, r.maxLatencyNanos());
              worstP99 = Math.max(worstP99, r.latencyP99Nanos());
              p50s.add(r.latencyP50Nanos());
              transfers += r.transfers();
              failures += r.failures();
              lost += r.lostWrites();
            }
            p50s.sort(null);
            String figures =
                String.format(
                    "%d requests of %d KiB, %d link flaps: p50 %.1f ms (median of the 6 pairs), p99 %.1f"
                        + " ms (worst pair), max %.1f ms (budget %.1f ms); flaps %s",
                    transfers,
                    CHUNK >> 10,
                    n,
                    ms(p50s.get(p50s.size() / 2)),
                    ms(worstP99),
                    ms(worst),
                    ms(BUDGET_NANOS + transferNanos),
                    log);
            System.out.println("remote link flap mesh: " + figures);
            ReliabilityReport.record(
                new ScenarioFigures(
                    "3x3 kernel-link mesh, remote link flaps" + (attempt > 1 ? " (retry)" : ""),
                    transfers,
                    failures,
                    ms(worst),
                    Double.NaN,
                    Double.NaN,
                    figures));
            for (RemoteLoad r : flapped) {
              assertEquals(0, r.failures(), r.failureSummary() + "; " + r.firstFailure());
            }
            assertEquals(0, lost, "every write landed");
            return worst <= BUDGET_NANOS + transferNanos
                ? List.<String>of()
                : List.of("max latency over the budget: " + figures);
          });
    } finally {
      runners.shutdownNow();
      for (NodeProcess node : nodes) {
        node.close();
      }
    }
  }

  /** Every node writes to both others for {@code run}; node 0 runs the faults. */
  private static List<RemoteLoad> run(
      List<NodeProcess> nodes, ExecutorService runners, Duration run, List<JsonObject> faults)
      throws Exception {
    List<Future<JsonObject>> answers = new ArrayList<>();
    for (int s = 0; s < HOSTS; s++) {
      List<JsonObject> targets = new ArrayList<>();
      for (int t = 0; t < HOSTS; t++) {
        if (t != s) {
          JsonObject target = HostLoads.target(nodes.get(t), 0, CHUNK, SLOTS);
          // Each sender writes its own part of the receiver's buffer.
          targets.add(target.put("address", target.getLong("address") + (long) s * SLOTS * CHUNK));
        }
      }
      NodeProcess sender = nodes.get(s);
      List<JsonObject> own = s == 0 ? faults : List.of();
      answers.add(
          runners.submit(
              () -> HostLoads.run(sender, 0, run, REQUEST_DEADLINE, targets, own, List.of())));
    }
    List<RemoteLoad> out = new ArrayList<>();
    for (Future<JsonObject> a : answers) {
      out.addAll(RemoteLoad.of(a.get()));
    }
    return out;
  }

  private static long median(List<RemoteLoad> loads) {
    List<Long> p50 = new ArrayList<>();
    loads.forEach(r -> p50.add(r.latencyP50Nanos()));
    p50.sort(null);
    return Math.max(1, p50.get(p50.size() / 2));
  }
}
