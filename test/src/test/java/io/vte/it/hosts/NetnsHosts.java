package io.vte.it.hosts;

import io.vte.it.HostScript;
import io.vte.it.NodeProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * Hosts as network namespaces for tests: N hosts with K rail NICs each on a rail-optimized fabric
 * of Linux bridges, a management network for the control plane, and a service namespace (for etcd).
 * The topology, its addresses and every fault live in {@code test/hosts.sh} (see its header); this
 * class runs it, parses what it prints, and starts node processes inside the hosts ({@code ip netns
 * exec}).
 *
 * <p>Everything is removed by {@link #close()} and, should the test JVM exit first, by a shutdown
 * hook; a set left by a killed run is removed by the next {@link #up}. Where namespaces cannot be
 * made the calling test is skipped with the reason, except under CI (environment {@code CI=true},
 * set by {@code .ci/run}), where it fails: there the kernel-link tests must run.
 */
public final class NetnsHosts implements AutoCloseable {

  /** System property naming the script (the build sets it to {@code test/hosts.sh}). */
  public static final String SCRIPT_PROPERTY = "vte.it.hostsScript";

  private static final Duration SCRIPT_DEADLINE = Duration.ofSeconds(60);

  /**
   * One namespace of the set.
   *
   * @param name host index ("0", "1", ...), "svc" or "fabric"
   * @param namespace the network namespace
   * @param mgmt the management NIC (handshake server, etcd); null for the fabric
   * @param nics rail NIC i's interface name and address, by rail
   */
  public record Host(String name, String namespace, Nic mgmt, List<Nic> nics) {

    /**
     * @return the launcher that runs a program inside this host
     */
    public List<String> launcher() {
      return List.of("ip", "netns", "exec", namespace);
    }

    /**
     * @param prefix device name prefix
     * @return one soft device spec {@code <prefix>d<i>@<rail i address>} per rail NIC
     */
    public List<String> devices(String prefix) {
      List<String> out = new ArrayList<>();
      for (int i = 0; i < nics.size(); i++) {
        out.add(prefix + "d" + i + "@" + nics.get(i).address());
      }
      return out;
    }

    /**
     * @param managementUp whether the management NIC is up (it is unless a test set it down)
     * @return the soft devices {@code DefaultSoftDevices} (an engine or {@code vte} without
     *     devices) chooses on this host, in interface order: {@code soft<i>@<rail i address>}, then
     *     the management NIC's when up
     */
    public List<String> defaultDeviceSpecs(boolean managementUp) {
      List<String> out = new ArrayList<>();
      for (Nic nic : nics) {
        out.add("soft" + out.size() + "@" + nic.address());
      }
      if (managementUp) {
        out.add("soft" + out.size() + "@" + mgmt.address());
      }
      return out;
    }
  }

  /**
   * @param iface interface name inside the host's namespace
   * @param address its IPv4 address
   */
  public record Nic(String iface, String address) {}

  private final Path script;
  private final Map<String, Host> hosts;
  private final Thread downOnExit;

  private NetnsHosts(Path script, Map<String, Host> hosts) {
    this.script = script;
    this.hosts = hosts;
    this.downOnExit =
        new Thread(
            () -> {
              try {
                run(script, "down");
              } catch (RuntimeException e) {
                System.err.println("hosts.sh down on exit failed: " + e.getMessage());
              }
            },
            "netns-hosts-down");
  }

  /**
   * @return why namespaces cannot be made here (not root, no {@code ip}, no permission), or null
   *     when they can
   */
  public static String unavailableReason() {
    try {
      run(script(), "check");
      return null;
    } catch (RuntimeException e) {
      return e.getMessage();
    }
  }

  /**
   * Skips the calling test when namespaces cannot be made, or fails it under CI.
   *
   * @throws AssertionError under CI when namespaces cannot be made
   */
  public static void assumeAvailable() {
    assumeAvailable(unavailableReason(), System.getenv("CI"));
  }

  /**
   * @param reason why namespaces cannot be made, or null
   * @param ci the environment variable {@code CI}
   */
  static void assumeAvailable(String reason, String ci) {
    if (reason == null) {
      return;
    }
    if ("true".equalsIgnoreCase(ci)) {
      throw new AssertionError(
          "CI=true requires the network-namespace tests to run, but: " + reason);
    }
    Assumptions.abort("network namespaces unavailable: " + reason);
  }

  /**
   * @return the namespaces of the set that exist now (made by this or any earlier run), sorted
   */
  public static List<String> namespaces() {
    List<String> out = new ArrayList<>();
    for (String line : run(script(), "show").split("\n")) {
      if (!line.isBlank()) {
        out.add(parse(line).namespace());
      }
    }
    return out.stream().sorted().toList();
  }

  /**
   * Builds a fresh set (removing a leftover one first) and checks that every host reaches its
   * neighbour on each network.
   *
   * @param n hosts
   * @param k rail NICs per host
   * @return the hosts, removed by {@link #close()}
   */
  public static NetnsHosts up(int n, int k) {
    assumeAvailable();
    Path script = script();
    NetnsHosts set = new NetnsHosts(script, new HashMap<>());
    Runtime.getRuntime().addShutdownHook(set.downOnExit);
    try {
      for (String line : run(script, "up", Integer.toString(n), Integer.toString(k)).split("\n")) {
        Host h = parse(line);
        set.hosts.put(h.name(), h);
      }
    } catch (RuntimeException e) {
      set.close();
      throw e;
    }
    if (set.hosts.size() != n + 2) {
      set.close();
      throw new AssertionError("hosts.sh up " + n + " " + k + " made " + set.hosts.keySet());
    }
    return set;
  }

  private static Host parse(String line) {
    Map<String, String> kv = new HashMap<>();
    for (String field : line.trim().split("\\s+")) {
      int eq = field.indexOf('=');
      kv.put(field.substring(0, eq), field.substring(eq + 1));
    }
    List<Nic> nics = new ArrayList<>();
    for (int i = 0; kv.containsKey("nic" + i); i++) {
      nics.add(nic(kv.get("nic" + i)));
    }
    return new Host(
        kv.get("host"),
        kv.get("ns"),
        kv.containsKey("mgmt") ? nic(kv.get("mgmt")) : null,
        List.copyOf(nics));
  }

  private static Nic nic(String ifaceAndAddress) {
    int colon = ifaceAndAddress.indexOf(':');
    return new Nic(ifaceAndAddress.substring(0, colon), ifaceAndAddress.substring(colon + 1));
  }

  /**
   * @param h host index
   * @return that host
   */
  public Host host(int h) {
    Host host = hosts.get(Integer.toString(h));
    if (host == null) {
      throw new IllegalArgumentException("no host " + h + " in " + hosts.keySet());
    }
    return host;
  }

  /**
   * @return the service namespace (management network only)
   */
  public Host services() {
    return hosts.get("svc");
  }

  /**
   * @return the fabric namespace (the rail and management bridges)
   */
  public Host fabric() {
    return hosts.get("fabric");
  }

  /**
   * Starts a node process inside a host.
   *
   * @param host where
   * @param name log name
   * @param args {@code key=value} arguments of {@link io.vte.it.NodeMain}
   * @return the ready node
   * @throws IOException when the JVM cannot start
   * @throws InterruptedException when interrupted
   */
  public NodeProcess startNode(Host host, String name, String... args)
      throws IOException, InterruptedException {
    return NodeProcess.start(host.launcher(), name, args);
  }

  /**
   * @param args a {@code hosts.sh} command, e.g. {@code link 0 0 down}
   * @return the command line that runs it (for a node process to run as a fault at a precise time)
   */
  public List<String> command(String... args) {
    List<String> out = new ArrayList<>(List.of("bash", script.toString()));
    out.addAll(List.of(args));
    return out;
  }

  /**
   * Sets a host's rail NIC up or down inside its namespace ({@code ip link set}).
   *
   * @param h host index
   * @param nic rail
   * @param up the new state
   */
  public void link(int h, int nic, boolean up) {
    run(script, "link", Integer.toString(h), Integer.toString(nic), up ? "up" : "down");
  }

  /**
   * Makes host {@code h}'s routes to every address of host {@code peer} blackholes (or removes
   * them): whatever {@code h} sends to {@code peer} is dropped without a word, so {@code peer} sees
   * {@code h} fall silent.
   *
   * @param h host index
   * @param peer the other host
   * @param on add or remove
   */
  public void blackhole(int h, int peer, boolean on) {
    run(script, "blackhole", Integer.toString(h), Integer.toString(peer), on ? "on" : "off");
  }

  /**
   * Shapes what a host sends on one rail NIC with a tbf qdisc.
   *
   * @param h host index
   * @param nic rail
   * @param rate a tc rate, e.g. {@code 80mbit}, or null to remove the qdisc
   */
  public void shape(int h, int nic, String rate) {
    run(script, "shape", Integer.toString(h), Integer.toString(nic), rate == null ? "off" : rate);
  }

  /** Removes every namespace of the set, with whatever still runs inside. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(downOnExit);
    } catch (IllegalStateException exiting) {
      // the hook runs anyway
    }
    run(script, "down");
  }

  private static Path script() {
    return HostScript.locate(SCRIPT_PROPERTY, "hosts.sh");
  }

  /** Runs {@code hosts.sh ARGS}; a non-zero exit throws with its stderr as the message. */
  private static String run(Path script, String... args) {
    return HostScript.run(script, SCRIPT_DEADLINE, Map.of(), args);
  }
}
