package io.vte.it.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.cli.common.ExitCodes;
import io.vte.it.rxe.RxeGuests.Job;
import io.vte.testkit.Await;
import io.vte.testkit.EtcdServer;
import io.vte.verbs.Gid;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * VTE on a real kernel verbs stack (issue 37): two QEMU guests as two hosts, each with two rail
 * NICs and soft-RoCE ({@code rxe0} on {@code eth0} = 198.18.0.g+1, {@code rxe1} on {@code eth1} =
 * 198.18.1.g+1), booted once for the class ({@link RxeGuests}). Java under TCG is slow (a JVM
 * starts in tens of seconds), so runs are short and small, but every check is the one a NIC would
 * get. Figures (boot, first-request latency, the NIC-down run) go to the standard output and to
 * {@code target/rxe-summary.txt}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RxeHostsTest {

  /** A guard against a hang, not a target: a JVM under TCG on a loaded machine takes minutes. */
  private static final Duration JVM_RUN = Duration.ofMinutes(8);

  static final Pattern SERVING =
      Pattern.compile("vte bench target: serving (\\S+) as segment (\\S+) \\(.*");
  private static final String VTE = "io.vte.cli.VteMain";
  private static final List<String> IBVERBS =
      List.of("--transport", "ibverbs", "--devices", "rxe0,rxe1");

  private static final int HOLD_S = 7;

  /**
   * The NIC-down writer's --duration: a ceiling, not the run's length. The test stops it with
   * SIGTERM (partial report, exit 143) once both rails carried writes again after both link-ups.
   * Not SIGINT: a guest job starts in the background of a shell, where SIGINT is ignored.
   */
  private static final int RUN_S = 150;

  /** The longest a request to a killed peer may take to end, under TCG. */
  private static final double DEAD_PEER_S = 3.0;

  private static final String ETCD = "etcd://198.19.0.100:2379";

  private static RxeGuests guests;
  private static Job target;
  private static long stageStart;
  private static EtcdServer etcd;
  private static final List<String> summary = new ArrayList<>();

  @BeforeAll
  static void boot() throws Exception {
    RxeGuests.assumeAvailable();
    etcd = EtcdServer.start();
    guests = RxeGuests.up(2, 2, etcd.clientPort());
    note(
        "guests up (2 x 2 NICs, -smp 1, TCG): %d ms wall; boot to commands %s ms",
        guests.upMillis(), guests.bootMillis());
    stageStart = System.nanoTime();
    // One target in guest 0 serves every initiator of the class (a JVM start costs tens of seconds
    // under TCG); it starts while guest 1 runs the first tests.
    target =
        guests.start(
            0,
            "target",
            vte(
                plus(
                    List.of(
                        "bench",
                        "target",
                        "--host",
                        "198.18.0.1",
                        "--port",
                        "40001",
                        "--segment-name",
                        "node-a",
                        "--metadata",
                        ETCD,
                        "--handshake-timeout",
                        "60"),
                    IBVERBS)));
  }

  @AfterAll
  static void down() throws Exception {
    note("rxe stage after boot: %d ms", (System.nanoTime() - stageStart) / 1_000_000);
    try {
      if (target != null) {
        target.kill();
      }
      if (guests != null) {
        guests.close();
      }
    } finally {
      if (etcd != null) {
        etcd.close();
      }
      Path file = Path.of("target", "rxe-summary.txt");
      Files.createDirectories(file.getParent());
      Files.write(
          file,
          summary,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.TRUNCATE_EXISTING);
    }
  }

  private static void note(String format, Object... args) {
    String line = String.format(format, args);
    summary.add(line);
    System.out.println("rxe: " + line);
  }

  private static String vte(List<String> args) {
    return guests.java(List.of(), VTE, args);
  }

  private static List<String> plus(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /**
   * The ibverbs provider's own hardware suite, unchanged, inside guest 1 (WRITE then READ of 512
   * KiB compared byte by byte, no leaked verbs object) and with a real port flap ({@code ip link
   * set eth0 down/up}: the kernel's PORT_ERR and PORT_ACTIVE). Nothing may be skipped. It runs with
   * rxe1 removed, so between two QPs of rxe0: two rxe devices of one host on different subnets
   * cannot connect (their move to RTR fails with ETIMEDOUT; {@code ibv_rc_pingpong} between them
   * fails the same way), which is rxe's loopback, not a NIC's two ports; the tests across guests
   * cover device-to-device traffic.
   */
  @Test
  @Order(1)
  void hardwareTestPassesOnRxe() throws Exception {
    String junit =
        guests.java(
            List.of(
                "-Dvte.hardware.flapCommand=ip link set eth0 down; sleep 3; ip link set eth0 up"),
            GuestJUnit.class.getName(),
            List.of(
                "--init=io.vte.verbs.ibv.IbvLibrary",
                "--init=io.vte.verbs.VerbsProviders",
                "--init=io.vte.testkit.Await",
                "io.vte.verbs.ibv.HardwareTest"));
    Job.Result r =
        guests
            .start(
                1,
                "hardware-test",
                "rdma link delete rxe1 || exit 99; "
                    + junit.replaceFirst("^exec ", "")
                    + "; rc=$?; rdma link add rxe1 type rxe netdev eth1 || exit 98; exit $rc")
            .awaitExit(JVM_RUN);
    assertEquals(0, r.status(), r.output());
    assertTrue(r.output().contains("guest-junit: PASSED started=2"), r.output());
  }

  /**
   * {@code vte devices} in guest 1 lists both rxe devices, port ACTIVE, each with the RoCE v2 GID
   * of its own NIC's IPv4 address.
   */
  @Test
  @Order(2)
  void devicesListsBothRxeDevicesWithTheirRoceV2Ipv4Gid() throws Exception {
    String out = guests.ok(1, JVM_RUN, vte(List.of("devices")));
    for (int i = 0; i < 2; i++) {
      String gid = Gid.fromInetAddress(InetAddress.getByName(RxeGuests.address(1, i))).toString();
      Pattern port =
          Pattern.compile(
              "(?m)^ibverbs\\s+rxe"
                  + i
                  + "\\s+1\\s+ACTIVE\\s+\\d+\\s+"
                  + Pattern.quote(gid)
                  + "(\\s.*)?$");
      assertTrue(port.matcher(out).find(), "rxe" + i + " ACTIVE with " + gid + ":\n" + out);
      assertTrue(
          Pattern.compile("(?m)^\\s+\\* gid \\d+ " + Pattern.quote(gid) + " ROCE_V2 ")
              .matcher(out)
              .find(),
          "rxe" + i + " chooses the RoCE v2 GID of " + RxeGuests.address(1, i) + ":\n" + out);
    }
  }

  /**
   * The two-host recipe over ibverbs: {@code vte bench target} in guest 0, {@code vte bench
   * initiator} in guest 1 by the printed server name (p2p) WRITEs, 0 failed, verified; then READs
   * through etcd (on this host, reached by the guests through their user-mode NIC) by segment name.
   * Also the figure of a new endpoint's first request against later ones (depth 1, no warm-up: the
   * first request carries the handshake and the QPs' first packets).
   */
  @Test
  @Order(3)
  void twoHostRecipeOverIbverbsWritesAndReadsVerifiedP2pAndThroughEtcd() throws Exception {
    Matcher m = target.awaitLine(SERVING, JVM_RUN);
    assertEquals("198.18.0.1:40001", m.group(1), m.group());
    assertEquals("node-a", m.group(2), m.group());
    JsonObject first =
        initiator(
            List.of(
                "--target",
                "198.18.0.1:40001",
                "--operation",
                "write",
                "--depth",
                "1",
                "--warmup",
                "0",
                "--duration",
                "3"));
    note(
        "first request of a new endpoint (handshake + first WRITE, depth 1): max %s us vs p50 %s us"
            + " (%d ops)",
        first.getJsonObject("latency_us").getValue("max"),
        first.getJsonObject("latency_us").getValue("p50"),
        first.getLong("ops"));
    // READ through etcd: each of WRITE and READ, p2p and etcd runs once (a JVM under TCG costs ~20
    // s)
    JsonObject viaEtcd =
        initiator(
            List.of(
                "--target",
                "node-a",
                "--metadata",
                ETCD,
                "--operation",
                "read",
                "--duration",
                "3"));
    assertEquals("read", viaEtcd.getString("operation"));
  }

  /** Runs {@code vte bench initiator} in guest 1 and checks 0 failed, ops > 0, verified. */
  private static JsonObject initiator(List<String> args) throws Exception {
    List<String> all = new ArrayList<>(List.of("bench", "initiator"));
    all.addAll(args);
    all.addAll(IBVERBS);
    all.addAll(List.of("--json", "--no-progress", "--handshake-timeout", "60"));
    if (!all.contains("--warmup")) {
      all.addAll(List.of("--warmup", "0.5"));
    }
    Job.Result r = guests.start(1, "initiator", vte(all)).awaitExit(JVM_RUN);
    String what = String.join(" ", all) + ": " + r.output();
    assertEquals(0, r.status(), what);
    String json = lastJsonLine(r.output());
    JsonObject j = new JsonObject(json);
    assertEquals(0L, j.getLong("failed"), what);
    assertTrue(j.getLong("ops") > 0, what);
    assertEquals(true, j.getBoolean("verified"), what);
    assertEquals(2, j.getInteger("devices"), what);
    return j;
  }

  /**
   * The seed's NIC-down scenario on rxe, scaled for TCG: guest 1 WRITEs continuously to guest 0
   * over both rails (64 KiB, 4 in flight); the sender's eth1 goes down for {@value #HOLD_S} s
   * ({@code ip link set}, inside), then up, then the receiver's. The kernel's port state (not an
   * injector's) is awaited at each step, and after each link-up the sender's rxe1 must send again
   * (its {@code sent_pkts} counter grows: the rail is back in use). The run: 0 failed, verified,
   * every write under 5 s plus its undisturbed time (p50).
   */
  @Test
  @Order(4)
  void nicDownOnTheSenderThenTheReceiverLosesNoWriteAndTheRailComesBack() throws Exception {
    Job sender = null;
    try {
      target.awaitLine(SERVING, JVM_RUN);
      sender = startWriter("nic-sender", RUN_S, 60);
      Job running = sender;
      awaitSending(running, 1, "the sender's rxe1 to carry writes", JVM_RUN);
      for (int side : new int[] {1, 0}) {
        String who = side == 1 ? "sender" : "receiver";
        long down = System.nanoTime();
        guests.link(side, 1, false);
        Await.until(
            who + "'s rxe1 port DOWN (kernel)",
            Duration.ofSeconds(10),
            () -> portState(side, 1).contains("DOWN"));
        note(
            "%s eth1 down: rxe1 port DOWN after %d ms",
            who, (System.nanoTime() - down) / 1_000_000);
        Await.until(
            who + "'s NIC held down for " + HOLD_S + " s, the writer running",
            Duration.ofSeconds(HOLD_S + 30),
            () -> alive(running) && System.nanoTime() - down >= HOLD_S * 1_000_000_000L);
        long up = System.nanoTime();
        guests.link(side, 1, true);
        Await.until(
            who + "'s rxe1 port ACTIVE (kernel)",
            Duration.ofSeconds(15),
            () -> portState(side, 1).contains("ACTIVE"));
        long active = System.nanoTime();
        awaitSending(
            running,
            1,
            "the sender's rxe1 back in use after the " + who + "'s link-up",
            Duration.ofSeconds(40));
        note(
            "%s eth1 up: rxe1 ACTIVE after %d ms, the rail carrying writes again %d ms later",
            who, (active - up) / 1_000_000, (System.nanoTime() - active) / 1_000_000);
      }
      awaitSending(running, 0, "the sender's rxe0 to carry writes after both link-ups", JVM_RUN);
      sender.signal("TERM");
      Job.Result r = sender.awaitExit(JVM_RUN);
      String what = r.output();
      JsonObject j = new JsonObject(lastJsonLine(r.output()));
      JsonObject lat = j.getJsonObject("latency_us");
      note(
          "NIC-down on rxe (2 hosts x 2 NICs, 64 KiB x 4, %s s, each side's eth1 down %d s): ops %d, failed %d, "
              + "verified %s, latency p50 %s us, max %s us, longest gap %s s",
          j.getValue("duration_s"),
          HOLD_S,
          j.getLong("ops"),
          j.getLong("failed"),
          j.getBoolean("verified"),
          lat.getValue("p50"),
          lat.getValue("max"),
          j.getValue("longest_gap_s"));
      assertEquals(0L, j.getLong("failed"), what);
      assertEquals(true, j.getBoolean("verified"), what);
      assertTrue(
          lat.getDouble("max") < 5_000_000 + lat.getDouble("p50"),
          "every write under 5 s plus its transfer time: " + what);
      assertEquals(ExitCodes.SIGTERM, r.status(), "stopped by SIGTERM, partial report: " + what);
    } finally {
      if (sender != null) {
        sender.kill();
      }
      guests.link(0, 1, true);
      guests.link(1, 1, true);
    }
  }

  /**
   * A peer killed with SIGKILL mid-run: guest 1 WRITEs to a target in guest 0 whose JVM is killed;
   * every request in flight and later fails with a typed cause (an {@code ErrorCode}, never
   * "untyped"), and the longest any request took to end bounds the detection time. Real RC says
   * nothing (a packet to a destroyed QP is dropped, and the QP's retries run out only after timeout
   * x (retry_cnt + 1), about 30 s at rxe's defaults), so the engine finds the dead peer from the
   * control plane: work quiet for 250 ms probes the peer's handshake service, whose refusal ends
   * every request PEER_UNREACHABLE. Target 1 s; asserted under {@value #DEAD_PEER_S} s, the margin
   * for Java under TCG (a probe is a gRPC call and an owner cycle in a JVM 10-20x slower).
   */
  @Test
  @Order(6)
  void aPeerKilledWithSigkillFailsTypedWithinTheRetryTime() throws Exception {
    Job ini = null;
    try {
      target.awaitLine(SERVING, JVM_RUN);
      ini = startWriter("kill-initiator", 120, 10);
      Job running = ini;
      awaitSending(ini, 0, "the initiator to write", JVM_RUN);
      long killed = System.nanoTime();
      target.signal("KILL");
      // The initiator keeps issuing requests to the dead peer for twice the bound, then stops
      // (SIGTERM: partial report): every request of that span must have ended within the bound.
      Await.until(
          "the initiator writing to the killed peer for " + 2 * DEAD_PEER_S + " s",
          Duration.ofSeconds((long) (2 * DEAD_PEER_S) + 60),
          () -> alive(running) && System.nanoTime() - killed >= (long) (2 * DEAD_PEER_S * 1e9));
      ini.signal("TERM");
      Job.Result r = ini.awaitExit(JVM_RUN);
      JsonObject j = new JsonObject(lastJsonLine(r.output()));
      String what = r.output();
      assertTrue(j.getLong("failed") > 0, "requests to a killed peer fail: " + what);
      JsonObject failures = j.getJsonObject("failures");
      for (String cause : failures.fieldNames()) {
        assertTrue(
            // the bench's key: "<request status or batch>/<ErrorCode>", an exception's class name
            // (lower case letters) when the cause was untyped, NONE when there was none
            cause.matches("(batch|[A-Z_]+)/[A-Z_]+") && !cause.endsWith("/NONE"),
            "typed causes only: " + failures + " " + what);
      }
      note(
          "peer SIGKILLed: failures %s, longest gap without a completion %s s, max latency %s us; initiator stopped (SIGTERM) %d ms after the kill",
          failures,
          j.getValue("longest_gap_s"),
          j.getJsonObject("latency_us").getValue("max"),
          (System.nanoTime() - killed) / 1_000_000);
      // Every request ends, failed or not, within the bound: those in flight at the kill and every
      // later one (the bench's longest gap counts successes only, so it spans the whole dead time).
      assertTrue(
          j.getJsonObject("latency_us").getDouble("max") <= DEAD_PEER_S * 1e6,
          "a killed peer is found within " + DEAD_PEER_S + " s: " + what);
      assertTrue(
          failures.fieldNames().stream().anyMatch(c -> c.endsWith("/PEER_UNREACHABLE")),
          "requests to a killed peer end PEER_UNREACHABLE: " + failures);
      assertEquals(ExitCodes.SIGTERM, r.status(), "stopped by SIGTERM, partial report: " + what);
    } finally {
      if (ini != null) {
        ini.kill();
      }
    }
  }

  /**
   * Registration of memory the kernel refuses, through an engine on rxe0 in guest 1 ({@link
   * RegistrationProbeMain}): 1 MiB at an unmapped address and 1 MiB of a file mapped read-only each
   * fail with a typed {@code VteException} whose message gives the kernel's real cause (EFAULT, the
   * address), not a memlock hint; ordinary memory registers.
   */
  @Test
  @Order(5)
  void registeringUnmappedOrReadOnlyMemoryFailsTypedNamingTheCause() throws Exception {
    Path scratch = guests.runDir().resolve("readonly.bin");
    String out =
        guests.ok(
            0,
            JVM_RUN,
            guests.java(
                List.of(), RegistrationProbeMain.class.getName(), List.of(scratch.toString())));
    java.util.Map<String, JsonObject> cases = new java.util.HashMap<>();
    for (String l : out.split("\n")) {
      if (l.startsWith("{")) {
        JsonObject j = new JsonObject(l);
        cases.put(j.getString("case"), j);
      }
    }
    assertEquals(java.util.Set.of("unmapped", "read-only", "writable"), cases.keySet(), out);
    assertEquals("registered", cases.get("writable").getString("outcome"), out);
    for (String c : List.of("unmapped", "read-only")) {
      note("registration of %s memory: %s", c, cases.get(c).encode());
    }
    for (String c : List.of("unmapped", "read-only")) {
      JsonObject j = cases.get(c);
      assertEquals("failed", j.getString("outcome"), out);
      assertEquals(io.vte.api.VteException.class.getName(), j.getString("type"), "typed: " + j);
      assertTrue(j.getString("code") != null, "an ErrorCode: " + j);
      String message = j.getString("message");
      assertTrue(message.contains("EFAULT"), c + ": the kernel's cause (EFAULT) is named: " + j);
      assertTrue(message.contains(j.getString("address")), c + ": the address is named: " + j);
      assertTrue(
          !message.contains("RLIMIT_MEMLOCK"), c + ": no memlock hint for a bad address: " + j);
    }
  }

  /**
   * The engine's data path between two rxe hosts, both directions at once ({@link
   * DataPathProbeMain} in guests 0 and 1, over rxe0 and rxe1): simultaneous open, a batch of WRITEs
   * then a notification after which the peer's bytes are in place, READs compared byte by byte, a
   * batch past its 1 ms deadline (TIMED_OUT, typed), a cancelled batch, and the endpoints working
   * after both.
   */
  @Test
  @Order(5)
  void bothHostsWriteReadNotifyCancelAndTimeOutAtOnceOverBothRails() throws Exception {
    Job[] sides = new Job[2];
    for (int g = 0; g < 2; g++) {
      sides[g] =
          guests.start(
              g,
              "data-path-" + g,
              guests.java(
                  List.of(),
                  DataPathProbeMain.class.getName(),
                  List.of(
                      RxeGuests.address(g, 0), RxeGuests.address(1 - g, 0), "40101", "rxe0,rxe1")));
    }
    Job.Result[] results = new Job.Result[2];
    for (int g = 0; g < 2; g++) {
      results[g] = sides[g].awaitExit(JVM_RUN);
    }
    for (int g = 0; g < 2; g++) {
      // Both sides' output: a side that failed may have waited for the other.
      note(
          "data path, guest %d: %s", g, new JsonObject(lastJsonLine(results[g].output())).encode());
    }
    for (int g = 0; g < 2; g++) {
      Job.Result r = results[g];
      JsonObject j = new JsonObject(lastJsonLine(r.output()));
      assertEquals(
          true,
          j.getBoolean("ok"),
          r.output() + "\n--- guest " + (1 - g) + ":\n" + results[1 - g].output());
      assertEquals(0, r.status(), r.output());
      long first = j.getLong("first_batch_ms");
      long later = Math.max(1, j.getLong("later_batch_ms"));
      note(
          "simultaneous open, guest %d: first batch %d ms, a later one %d ms (%.1fx)",
          g, first, later, (double) first / later);
      long warmFirst = j.getLong("warm_new_endpoint_first_batch_ms");
      long warmLater = Math.max(1, j.getLong("warm_new_endpoint_later_batch_ms"));
      note(
          "new endpoint in a warm JVM, guest %d: first batch %d ms, a later one %d ms (%.1fx)",
          g, warmFirst, warmLater, (double) warmFirst / warmLater);
      // The opening batch carries both handshakes; none of its packets may have needed a
      // retransmit, which a side posting to QPs still in INIT pays one ACK timeout for.
      JsonObject opening = j.getJsonObject("first_batch_counters");
      for (String dev : List.of("rxe0", "rxe1")) {
        assertEquals(
            0L,
            opening.getLong(dev + ".completer_retry_err", 0L),
            "guest " + g + " retransmitted on " + dev + " during the opening batch: " + opening);
      }
    }
  }

  /**
   * Starts, in guest 1, a bench initiator that WRITEs 64 KiB, 4 in flight, over both rails to the
   * target in guest 0 for {@code seconds} s, verified, reporting JSON.
   */
  private static Job startWriter(String name, int seconds, int handshakeTimeoutSeconds)
      throws IOException {
    List<String> args =
        List.of(
            "bench",
            "initiator",
            "--target",
            "198.18.0.1:40001",
            "--operation",
            "write",
            "--size",
            "64KiB",
            "--depth",
            "4",
            "--duration",
            Integer.toString(seconds),
            "--warmup",
            "0.5",
            "--json",
            "--no-progress",
            "--handshake-timeout",
            Integer.toString(handshakeTimeoutSeconds));
    return guests.start(1, name, vte(plus(args, IBVERBS)));
  }

  /** Waits until guest 1's rxe{@code dev} sent 100 more packets, {@code job} still running. */
  private static void awaitSending(Job job, int dev, String what, Duration deadline) {
    long before = counter(1, dev, "sent_pkts");
    Await.until(what, deadline, () -> alive(job) && counter(1, dev, "sent_pkts") > before + 100);
  }

  private static boolean alive(Job job) {
    Integer status = job.status();
    if (status != null) {
      throw new AssertionError(job + " ended early with " + status + ": " + job.output());
    }
    return true;
  }

  /** A counter of an rxe port ({@code /sys/class/infiniband/rxe<dev>/ports/1/hw_counters/NAME}). */
  private static long counter(int guest, int dev, String name) {
    try {
      return Long.parseLong(
          guests
              .ok(
                  guest,
                  Duration.ofSeconds(30),
                  "cat /sys/class/infiniband/rxe" + dev + "/ports/1/hw_counters/" + name)
              .trim());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** The kernel's state of port 1 of rxe<dev>, e.g. {@code 4: ACTIVE}. */
  private static String portState(int guest, int dev) {
    try {
      return guests
          .ok(
              guest,
              Duration.ofSeconds(30),
              "cat /sys/class/infiniband/rxe" + dev + "/ports/1/state")
          .trim();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static String lastJsonLine(String output) {
    String found = null;
    for (String l : output.split("\n")) {
      if (l.startsWith("{")) {
        found = l;
      }
    }
    if (found == null) {
      throw new AssertionError("no JSON line in: " + output);
    }
    return found;
  }
}
