package io.vte.it.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.it.rxe.RxeGuests.Job;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Three rxe hosts on one rail, joined by the rails' learning switch ({@code
 * test/rxe/RailHub.java}): RC traffic between every pair of guests, then one VTE target serving two
 * initiators on two other hosts at once (an engine with several peers over a real kernel verbs
 * stack).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RxeThreeHostsTest {
  private static final Duration JVM_RUN = Duration.ofMinutes(8);
  private static final String VTE = "io.vte.cli.VteMain";
  private static final List<String> IBVERBS =
      List.of("--transport", "ibverbs", "--devices", "rxe0");

  private static RxeGuests guests;

  @BeforeAll
  static void boot() {
    RxeGuests.assumeAvailable();
    // No etcd here: the guests' forward to the host's etcd port is never used.
    guests = RxeGuests.up(3, 1, 1);
    System.out.printf(
        "rxe: 3 guests on one rail through the switch: %d ms wall; boot to commands %s ms%n",
        guests.upMillis(), guests.bootMillis());
  }

  @AfterAll
  static void down() {
    if (guests != null) {
      guests.close();
    }
  }

  /** {@code ibv_rc_pingpong} from guests 1 and 2 to guest 0 at once, and from guest 2 to 1. */
  @Test
  @Order(1)
  void everyPairOfGuestsRunsRcTrafficThroughTheSwitch() throws Exception {
    // The RoCE v2 GID of the rail's IPv4 address (::ffff:198.18.0.g in sysfs' long form).
    String gid =
        "$(for i in $(seq 0 15); do case $(cat /sys/class/infiniband/rxe0/ports/1/gids/$i"
            + " 2>/dev/null) in *:ffff:c612:*) echo $i; break;; esac; done)";
    String serve = "ibv_rc_pingpong -d rxe0 -g " + gid + " -n 200 -p ";
    Job s01 = guests.start(0, "pp-server-1", serve + "18515");
    Job s02 = guests.start(0, "pp-server-2", serve + "18516");
    Job s12 = guests.start(1, "pp-server-3", serve + "18517");
    Job c10 = guests.start(1, "pp-client-1", client(serve, 18515, 0));
    Job c20 = guests.start(2, "pp-client-2", client(serve, 18516, 0));
    Job c21 = guests.start(2, "pp-client-3", client(serve, 18517, 1));
    for (Job j : List.of(c10, c20, c21, s01, s02, s12)) {
      Job.Result r = j.awaitExit(Duration.ofMinutes(3));
      assertEquals(0, r.status(), j + ": " + r.output());
      assertTrue(r.output().contains("200 iters"), j + ": " + r.output());
    }
  }

  /** A client of {@code serve} against guest {@code server}, retried until the server listens. */
  private static String client(String serve, int port, int server) {
    return "for i in $(seq 60); do "
        + serve
        + port
        + " "
        + RxeGuests.address(server, 0)
        + " && exit 0; sleep 1; done; exit 1";
  }

  /**
   * One target in guest 0 serves READs of initiators in guests 1 and 2 at the same time, each block
   * checked against the target's pattern, nothing failed. (Concurrent WRITEs are not checked here:
   * both initiators would write the same region of the target, and each one's read-back would see
   * the other's pattern.)
   */
  @Test
  @Order(2)
  void oneTargetServesInitiatorsOnTwoOtherHostsAtOnce() throws Exception {
    Job target =
        guests.start(
            0,
            "target",
            vte(
                List.of(
                    "bench",
                    "target",
                    "--host",
                    RxeGuests.address(0, 0),
                    "--port",
                    "40001",
                    "--handshake-timeout",
                    "60")));
    try {
      target.awaitLine(RxeHostsTest.SERVING, JVM_RUN);
      String op = "read";
      Job a = guests.start(1, "initiator-1-" + op, initiator(op));
      Job b = guests.start(2, "initiator-2-" + op, initiator(op));
      for (Job j : List.of(a, b)) {
        Job.Result r = j.awaitExit(JVM_RUN);
        assertEquals(0, r.status(), j + ": " + r.output());
        JsonObject json = new JsonObject(RxeHostsTest.lastJsonLine(r.output()));
        assertEquals(0L, json.getLong("failed"), r.output());
        assertTrue(json.getLong("ops") > 0, r.output());
        assertEquals(true, json.getBoolean("verified"), r.output());
        System.out.printf(
            "rxe: %s from %s to a target with two peers: %s GiB/s, p50 %s us%n",
            op,
            j == a ? "guest 1" : "guest 2",
            json.getValue("throughput_gib_s"),
            json.getJsonObject("latency_us").getValue("p50"));
      }
    } finally {
      target.kill();
    }
  }

  private static String initiator(String operation) {
    return vte(
        List.of(
            "bench",
            "initiator",
            "--target",
            RxeGuests.address(0, 0) + ":40001",
            "--operation",
            operation,
            "--size",
            "256KiB",
            "--depth",
            "4",
            "--duration",
            "4",
            "--warmup",
            "0.5",
            "--json",
            "--no-progress",
            "--handshake-timeout",
            "60"));
  }

  private static String vte(List<String> args) {
    List<String> all = new ArrayList<>(args);
    all.addAll(IBVERBS);
    return guests.java(List.of(), VTE, all);
  }
}
