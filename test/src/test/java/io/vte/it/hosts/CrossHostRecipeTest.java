package io.vte.it.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.testkit.ChildJvm;
import io.vte.testkit.EtcdServer;
import io.vte.testkit.ReadmeCommands;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docs/cli.md's "Across hosts" recipe (issue 11 item 5), run as printed: its {@code ./vte} commands
 * are read from the page, so the test fails when the page drifts, and each runs (the {@code vte}
 * command, {@code VteMain} on this class path, one child JVM per command) in a namespace host:
 * {@code bench target} on host 0 (198.18.0.1, the page's host A), {@code bench initiator} on host 1
 * (198.18.0.2, host B), p2p and through etcd, WRITE and READ, verified. No command carries {@code
 * --devices}: each side takes its host's interfaces.
 *
 * <p>The page's hosts are on one network: every address of one reaches every address of the other.
 * The harness's hosts also have a management NIC on a network apart from the rails, which the
 * default choice takes as one more device; so the recipe runs with the management NICs down (each
 * host: 2 rail NICs, reaching the other's through the spine) and etcd in the fabric namespace on
 * the spine's rail-0 address (198.18.0.254; the page's example has it at 198.18.0.10). With the
 * management NICs up the recipe works too ({@link
 * #withAManagementNetworkTheDefaultDevicesStillMoveVerifiedData}): each device prefers the peer's
 * devices of its own subnet ({@code RailAffinity}). {@code ./vte devices} shows the choice on a
 * host.
 *
 * <p>The test adds to the printed commands only what makes a run short and parseable on a busy
 * machine: the initiator's {@code --duration 2 --warmup 0.5 --json --no-progress} and both sides'
 * {@code --handshake-timeout}.
 */
class CrossHostRecipeTest {

  private static final Path RECIPE_PAGE = Path.of("../docs/cli.md").toAbsolutePath().normalize();
  private static final Duration START = Duration.ofSeconds(120);
  private static final List<String> SHORT_RUN =
      List.of(
          "--duration",
          "2",
          "--warmup",
          "0.5",
          "--json",
          "--no-progress",
          "--handshake-timeout",
          "30");
  private static final Pattern SERVING =
      Pattern.compile(
          "vte bench target: serving (\\S+) as segment (\\S+) \\(\\d+ B registered on (\\S+)\\); stop with .*");
  private static final String PAGE_ETCD = "etcd://198.18.0.10:2379";

  /**
   * The fabric's address on rail 0 (the spine), where etcd runs: reachable from every host over the
   * rails.
   */
  private static final String SPINE = "198.18.0.254";

  private static NetnsHosts hosts;
  private static boolean managementUp = true;

  @BeforeAll
  static void hosts() throws Exception {
    hosts = NetnsHosts.up(2, 2);
    // The page's example addresses are the harness's: host A's first NIC 198.18.0.1, host B's
    // 198.18.0.2.
    assertEquals("198.18.0.1", hosts.host(0).nics().get(0).address());
    assertEquals("198.18.0.2", hosts.host(1).nics().get(0).address());
    management(false);
  }

  /** Sets both hosts' management NICs up or down. */
  private static void management(boolean up) throws Exception {
    for (int h = 0; h < 2; h++) {
      NetnsHosts.Host host = hosts.host(h);
      List<String> cmd =
          new ArrayList<>(
              hosts.command(
                  "exec",
                  host.name(),
                  "ip",
                  "link",
                  "set",
                  host.mgmt().iface(),
                  up ? "up" : "down"));
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      assertTrue(
          p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0,
          cmd + ": " + out);
    }
    managementUp = up;
  }

  @AfterAll
  static void down() {
    if (hosts != null) {
      hosts.close();
    }
  }

  /** The recipe's commands: the "Across hosts" paragraph, none with {@code --devices}. */
  private static List<ReadmeCommands.Command> recipe() {
    List<ReadmeCommands.Command> all =
        ReadmeCommands.between(RECIPE_PAGE, "**Across hosts.**", "**Faults.**");
    for (ReadmeCommands.Command c : all) {
      assertFalse(
          c.args().contains("--devices"), "the recipe takes the host's interfaces: " + c.command());
    }
    return all;
  }

  private static List<ReadmeCommands.Command> select(String mode, boolean etcd) {
    return recipe().stream()
        .filter(c -> c.command().startsWith("./vte bench " + mode + " "))
        .filter(c -> c.args().contains("--metadata") == etcd)
        .toList();
  }

  private static ChildJvm vte(NetnsHosts.Host host, List<String> args) throws IOException {
    return new ChildJvm(host.launcher(), "io.vte.cli.VteMain", args);
  }

  /**
   * Starts a printed target command on host 0 and checks what it prints against the page and the
   * host.
   */
  private static ChildJvm target(ReadmeCommands.Command printed, String etcdUri, String segment)
      throws IOException {
    List<String> args =
        new ArrayList<>(printed.args().stream().map(a -> a.replace(PAGE_ETCD, etcdUri)).toList());
    args.addAll(List.of("--handshake-timeout", "30"));
    ChildJvm target = vte(hosts.host(0), args);
    String announce = target.firstLine(START);
    assertNotNull(announce, printed.command() + ": " + target.err());
    Matcher m = SERVING.matcher(announce);
    assertTrue(m.matches(), announce);
    assertTrue(m.group(1).startsWith("198.18.0.1:"), "serves on host A's first NIC: " + announce);
    assertEquals(segment, m.group(2), announce);
    assertEquals(
        hosts.host(0).defaultDeviceSpecs(managementUp),
        List.of(m.group(3).split(",")),
        "host A's interfaces: " + announce);
    return target;
  }

  /**
   * Runs a printed initiator command on host 1; checks exit 0, 0 failed, verified, and host B's
   * devices.
   */
  private static JsonObject initiator(
      ReadmeCommands.Command printed, String etcdUri, String... extra) throws Exception {
    List<String> args =
        new ArrayList<>(printed.args().stream().map(a -> a.replace(PAGE_ETCD, etcdUri)).toList());
    args.addAll(List.of(extra));
    args.addAll(SHORT_RUN);
    try (ChildJvm ini = vte(hosts.host(1), args)) {
      int exit = ini.exitCode(START);
      String what = String.join(" ", args) + ": stdout " + ini.out() + " stderr " + ini.err();
      assertEquals(0, exit, what);
      assertEquals(1, ini.out().size(), what);
      JsonObject r = new JsonObject(ini.out().get(0));
      assertEquals("initiator", r.getString("mode"), what);
      assertEquals(0L, r.getLong("failed"), what);
      assertTrue(r.getLong("ops") > 0, what);
      assertEquals(true, r.getBoolean("verified"), what);
      assertEquals(
          hosts.host(1).defaultDeviceSpecs(managementUp).size(),
          r.getInteger("devices"),
          "host B's interfaces: " + what);
      return r;
    }
  }

  private static void stop(ChildJvm target) throws InterruptedException {
    target.terminate();
    assertEquals(
        0,
        target.exitCode(Duration.ofSeconds(30)),
        "SIGTERM ends the target with exit code 0: " + target.err());
  }

  @Test
  void p2pTheInitiatorOnHostBWritesAndReadsTheTargetOnHostAByItsPrintedServerName()
      throws Exception {
    p2p();
  }

  /**
   * The same p2p recipe with the management NICs up: each host's default devices include its
   * management NIC, on a network the peer's rail NICs do not reach (from a rail address it is
   * unreachable, from the management address a rail address never answers). Each device sends only
   * to the peer devices of its subnet, so no slice takes such a path. Before that rule a WRITE run
   * stalled 15 s (two QP failure times) and did not finish.
   */
  @Test
  void withAManagementNetworkTheDefaultDevicesStillMoveVerifiedData() throws Exception {
    management(true);
    try {
      p2p();
    } finally {
      management(false);
    }
  }

  private static void p2p() throws Exception {
    List<ReadmeCommands.Command> targets = select("target", false);
    assertEquals(1, targets.size(), "one p2p target in the recipe: " + recipe());
    ReadmeCommands.Command printed = targets.get(0);
    Matcher prints = Pattern.compile("prints: (.*) \\(\\.\\.\\.\\)").matcher(printed.comment());
    assertTrue(prints.matches(), "the page says what the target prints: " + printed);
    List<ReadmeCommands.Command> initiators = select("initiator", false);
    assertEquals(
        List.of("write", "read"),
        initiators.stream().map(c -> c.args().get(c.args().indexOf("--operation") + 1)).toList(),
        "the recipe's p2p runs: " + initiators);
    try (ChildJvm target = target(printed, "", "node-a")) {
      assertTrue(
          target.out().get(0).startsWith(prints.group(1) + " ("),
          "prints what the page says it prints: "
              + target.out().get(0)
              + " vs "
              + printed.comment());
      for (ReadmeCommands.Command ini : initiators) {
        String server = ini.args().get(ini.args().indexOf("--target") + 1);
        assertTrue(
            target.out().get(0).contains("serving " + server + " "),
            "the initiator's --target is the server "
                + "name the target printed: "
                + ini.command());
        JsonObject r = initiator(ini, "");
        assertEquals(
            ini.args().get(ini.args().indexOf("--operation") + 1),
            r.getString("operation"),
            r.encode());
      }
      stop(target);
    }
  }

  @Test
  void etcdTheInitiatorOnHostBFindsTheTargetBySegmentNameForWriteAndRead() throws Exception {
    List<ReadmeCommands.Command> targets = select("target", true);
    List<ReadmeCommands.Command> initiators = select("initiator", true);
    assertEquals(1, targets.size(), "one etcd target in the recipe: " + recipe());
    assertEquals(1, initiators.size(), "one etcd initiator in the recipe: " + recipe());
    ReadmeCommands.Command printed = initiators.get(0);
    assertTrue(
        targets.get(0).command().contains(PAGE_ETCD) && printed.command().contains(PAGE_ETCD),
        "both name the same etcd: " + targets + initiators);
    try (EtcdServer etcd = EtcdServer.startIn(hosts.fabric().launcher(), SPINE);
        ChildJvm target = target(targets.get(0), "etcd://" + etcd.hostPort(), "node-a")) {
      String segment = printed.args().get(printed.args().indexOf("--target") + 1);
      assertEquals("node-a", segment, "the initiator names the target's segment: " + printed);
      // As printed (the default operation), then the READ the p2p recipe shows.
      JsonObject asPrinted = initiator(printed, "etcd://" + etcd.hostPort());
      assertEquals("write", asPrinted.getString("operation"), asPrinted.encode());
      JsonObject read = initiator(printed, "etcd://" + etcd.hostPort(), "--operation", "read");
      assertEquals("read", read.getString("operation"), read.encode());
      stop(target);
    }
  }

  @Test
  void devicesShowsTheHostsInterfacesAndTheSoftProviderOpensExactlyThose() throws Exception {
    List<ReadmeCommands.Command> shown =
        recipe().stream().filter(c -> c.command().equals("./vte devices")).toList();
    assertEquals(1, shown.size(), "the recipe points at ./vte devices: " + recipe());
    NetnsHosts.Host h = hosts.host(0);
    try (ChildJvm devices = vte(h, shown.get(0).args())) {
      assertEquals(0, devices.exitCode(START), devices.err().toString());
      List<String> lines = devices.out();
      List<String> ifaces = new ArrayList<>(h.nics().stream().map(NetnsHosts.Nic::iface).toList());
      List<String> specs = h.defaultDeviceSpecs(managementUp);
      assertEquals(
          "default soft devices (no --devices, \"devices\": []): "
              + specs.size()
              + " soft device(s), one "
              + "per IPv4 address of the up non-loopback interfaces "
              + ifaces,
          lines.get(0));
      assertTrue(
          lines.contains("  skipped " + h.mgmt().iface() + ": down"),
          "the management NIC is down: " + lines);
      List<String> providerLines = lines.stream().filter(l -> l.startsWith("soft ")).toList();
      assertEquals(specs.size(), providerLines.size(), lines.toString());
      for (int i = 0; i < specs.size(); i++) {
        String address = specs.get(i).substring(specs.get(i).indexOf('@') + 1);
        assertTrue(
            lines.contains(String.format("  %-8s %-16s %s", "soft" + i, address, ifaces.get(i))),
            "soft" + i + " on " + address + " of " + ifaces.get(i) + ": " + lines);
        String gid = io.vte.verbs.Gid.fromInetAddress(InetAddress.getByName(address)).toString();
        assertTrue(
            providerLines
                .get(i)
                .matches("soft\\s+soft" + i + "\\s+1\\s+ACTIVE\\s+4096\\s+" + gid + "\\s+.*"),
            providerLines.get(i) + " carries " + gid);
      }
      assertTrue(
          lines.contains(
              "  skipped lo: loopback (used only when no other interface has a usable IPv4 "
                  + "address)"),
          lines.toString());
    }
  }
}
