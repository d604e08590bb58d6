package io.vte.it.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.ChildJvm;
import io.vte.testkit.EtcdServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vte scale --netns} end to end on a small set: 2 then 3 hosts, each a JVM in its own
 * namespace with 2 veth rail NICs, etcd in the service namespace. The table's figures must agree
 * with each other and with the fit printed under it; none is compared with a fixed value. Each run
 * ends with staggered crash restarts: no transfer fails after them, and the handshake retries stay
 * within the engine's bound.
 */
class NetnsScaleTest {

  /** A hang bound, not a target: 30-50 s on an idle machine. */
  private static final Duration RUN_DEADLINE = Duration.ofSeconds(300);

  @Test
  void hostsAsProcessesReportConsistentFiguresAndAFitThatMatchesTheTable(@TempDir Path out)
      throws Exception {
    try (NetnsHosts hosts = NetnsHosts.up(3, 2);
        EtcdServer etcd =
            EtcdServer.startIn(hosts.services().launcher(), hosts.services().mgmt().address())) {
      String ns = hosts.host(0).namespace();
      String prefix = ns.substring(0, ns.length() - "-h0".length());
      // at the suite's own priority: at nice 19 beside a CPU hog the host JVMs starved (no exit
      // within the deadline, or a window that moved nothing)
      List<String> launcher = hosts.services().launcher();
      List<String> args =
          List.of(
              "scale",
              "--netns",
              prefix,
              "--metadata",
              "etcd://" + etcd.hostPort(),
              "--hosts",
              "2,3",
              "--window",
              "0.5",
              "--idle-ms",
              "1000",
              "--storm",
              "--stagger-ms",
              "700",
              "--out",
              out.toString());
      try (ChildJvm vte = new ChildJvm(launcher, "io.vte.cli.VteMain", args)) {
        int exit = vte.exitCode(RUN_DEADLINE);
        assertEquals(0, exit, "vte " + args + ": " + vte.out() + vte.err());
      }
      String md = Files.readString(out.resolve("scale.md"));
      Map<Integer, String[]> rows = new TreeMap<>();
      for (String line : md.lines().filter(l -> l.matches("\\| [23] \\| 2 \\|.*")).toList()) {
        rows.put(Integer.parseInt(line.split("\\|")[1].trim()), line.split("\\|"));
      }
      assertEquals(List.of(2, 3), List.copyOf(rows.keySet()), md);
      double[] endpoints = new double[4];
      for (int h : rows.keySet()) {
        String[] c = rows.get(h);
        String row = String.join("|", c);
        assertEquals("0", c[16].trim(), "failed transfers: " + row);
        endpoints[h] = number(c[3]);
        // every host reaches each peer on some rail, and a QP per endpoint (RC soft verbs)
        assertTrue(endpoints[h] >= h - 1, row);
        assertEquals(endpoints[h], number(c[4]), "QPs = endpoints: " + row);
        assertTrue(number(c[6]) < number(c[5]), "the idle connections closed: " + row);
        String[] latency = c[11].split("/");
        assertTrue(
            0 < number(latency[0]) && number(latency[0]) <= number(latency[1]),
            "first transfer p50 <= p99: " + row);
        assertTrue(number(c[12]) > 0 && number(c[15]) > 0, "handshakes and throughput: " + row);
        long keys = (long) number(c[13]);
        assertTrue(keys > 0 && keys % h == 0, "each host has as many keys in etcd: " + row);
        assertTrue(number(c[14]) >= keys, "a watcher saw at least every key's put: " + row);
        for (int i = 0; i < h; i++) {
          assertTrue(
              Files.isRegularFile(out.resolve("logs-" + h).resolve("h" + i + ".log")),
              "host " + i + " of " + h + " ran as a process of its own");
        }
      }
      assertEquals(
          number(rows.get(2)[13]) / 2, number(rows.get(3)[13]) / 3, "etcd keys per host: " + md);
      // two runs: the fitted per-peer cost is the difference between them
      String fit =
          md.lines().filter(l -> l.startsWith("| endpoints (count)")).findFirst().orElseThrow();
      assertEquals(endpoints[3] - endpoints[2], number(fit.split("\\|")[3]), 0.01, fit);
      String storm = md.substring(md.indexOf("reconnect storm (staggered crash restarts"));
      List<String> stormRows = storm.lines().filter(l -> l.matches("\\| [23] \\|.*")).toList();
      assertEquals(2, stormRows.size(), md);
      for (String row : stormRows) {
        String[] c = row.split("\\|");
        double handshakes = number(c[3]);
        double retries = number(c[5]);
        assertTrue(handshakes > 0, row);
        // at most 8 attempts per handshake: 7 retries
        assertTrue(retries <= 7 * handshakes, "retries bounded: " + row);
        assertEquals(retries > 0, number(c[6]) > 0, "backoff time iff retries: " + row);
        assertEquals("0", c[9].trim(), "no transfer failed after the storm: " + row);
      }
      byte[] png = Files.readAllBytes(out.resolve("scale.png"));
      assertEquals((byte) 0x89, png[0]);
      assertEquals('P', png[1]);
    }
  }

  private static double number(String cell) {
    return Double.parseDouble(cell.trim());
  }
}
