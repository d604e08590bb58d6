package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A soft device follows a real kernel link: a JVM ({@link LinkWatchMain}) inside a network
 * namespace of its own opens a device on an address of a veth there; the test sets that veth down
 * and up, takes its peer's carrier away, and removes and restores the address, each time awaiting
 * PORT_ERR and then PORT_ACTIVE (with the port state in the event) within a deadline. The namespace
 * is {@code $VTE_NETNS_PREFIX-softlink} (prefix default {@code vte-netns}, as {@code
 * test/hosts.sh}) and is removed afterwards. Without root or {@code ip} the test is skipped with
 * the reason; with {@code CI=true} it fails instead.
 */
class KernelLinkTest {

  private static final Duration EVENT_DEADLINE = Duration.ofSeconds(5);
  private static final Duration COMMAND_DEADLINE = Duration.ofSeconds(20);
  private static final String NIC = "vsl0";
  private static final String PEER = "vsl1";
  private static final String ADDRESS = "198.18.200.1";

  private final String ns =
      System.getenv().getOrDefault("VTE_NETNS_PREFIX", "vte-netns") + "-softlink";

  @Test
  @Timeout(180)
  void portErrWhenTheLinkOrItsCarrierOrTheAddressGoesAndPortActiveWhenItComesBack()
      throws Exception {
    setUpNamespace();
    String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    Process child =
        new ProcessBuilder(
                "ip",
                "netns",
                "exec",
                ns,
                java,
                "-Xmx64m",
                "-cp",
                System.getProperty("java.class.path"),
                LinkWatchMain.class.getName(),
                ADDRESS)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      BlockingQueue<String> lines = lines(child);
      PrintWriter in = new PrintWriter(child.getOutputStream(), true, StandardCharsets.UTF_8);
      assertEquals("READY ACTIVE", next(lines, COMMAND_DEADLINE, "the device opened"));
      List<String> figures = new ArrayList<>();
      String[][] faults = {
        {"link set " + NIC + " down", "link set " + NIC + " up"},
        {
          "link set " + PEER + " down", "link set " + PEER + " up"
        }, // carrier lost, the NIC itself stays up
        {"addr del " + ADDRESS + "/24 dev " + NIC, "addr add " + ADDRESS + "/24 dev " + NIC},
      };
      for (String[] fault : faults) {
        figures.add(fault[0] + ": " + flip(lines, fault[0], "EVENT PORT_ERR DOWN"));
        figures.add(fault[1] + ": " + flip(lines, fault[1], "EVENT PORT_ACTIVE ACTIVE"));
      }
      in.println("STATE");
      assertEquals(
          "STATE ACTIVE",
          next(lines, COMMAND_DEADLINE, "the port state"),
          "no other event came between");
      System.out.println("kernel link -> port event latency: " + figures);
      in.close();
      assertEquals(
          true,
          child.waitFor(COMMAND_DEADLINE.toSeconds(), TimeUnit.SECONDS),
          "the device JVM exits");
    } finally {
      child.destroyForcibly();
      child.waitFor(COMMAND_DEADLINE.toSeconds(), TimeUnit.SECONDS);
      ip("netns", "del", ns);
    }
  }

  /** Runs {@code ip -n NS <command>} and awaits the line expected, returning how long it took. */
  private String flip(BlockingQueue<String> lines, String command, String expected)
      throws Exception {
    long t0 = System.nanoTime();
    List<String> cmd = new ArrayList<>(List.of("-n", ns));
    cmd.addAll(List.of(command.split(" ")));
    ip(cmd.toArray(new String[0]));
    assertEquals(expected, next(lines, EVENT_DEADLINE, "the event after '" + command + "'"));
    return (System.nanoTime() - t0) / 1_000_000 + " ms";
  }

  private void setUpNamespace() {
    String reason = null;
    if (!"root".equals(System.getProperty("user.name"))) {
      reason = "network namespaces need root (user " + System.getProperty("user.name") + ")";
    } else {
      try {
        ip("netns", "del", ns); // left by a killed run, if any
      } catch (AssertionError | IllegalStateException absent) {
        // nothing to remove
      }
      try {
        ip("netns", "add", ns);
      } catch (AssertionError | IllegalStateException e) {
        reason = "cannot create a network namespace: " + e.getMessage();
      }
    }
    if (reason != null) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new AssertionError(
            "CI=true requires the network-namespace tests to run, but: " + reason);
      }
      Assumptions.abort(reason);
    }
    ip("-n", ns, "link", "set", "lo", "up");
    ip("-n", ns, "link", "add", NIC, "type", "veth", "peer", "name", PEER);
    ip("-n", ns, "addr", "add", ADDRESS + "/24", "dev", NIC);
    ip("-n", ns, "link", "set", NIC, "up");
    ip("-n", ns, "link", "set", PEER, "up");
  }

  /** Runs {@code ip ARGS}; a non-zero exit or no {@code ip} at all throws with what it said. */
  private static void ip(String... args) {
    List<String> cmd = new ArrayList<>(List.of("ip"));
    cmd.addAll(List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(COMMAND_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(cmd + " did not finish within " + COMMAND_DEADLINE);
      }
      if (p.exitValue() != 0) {
        throw new AssertionError(cmd + " failed: " + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + cmd + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + cmd, e);
    }
  }

  /** The child's stdout as a queue of lines, read by a daemon thread that ends with the stream. */
  private static BlockingQueue<String> lines(Process child) {
    BlockingQueue<String> q = new LinkedBlockingQueue<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  q.add(line);
                }
              } catch (IOException closed) {
                // the child is gone
              }
            },
            "link-watch-stdout");
    reader.setDaemon(true);
    reader.start();
    return q;
  }

  private static String next(BlockingQueue<String> lines, Duration deadline, String what)
      throws InterruptedException {
    String line = lines.poll(deadline.toMillis(), TimeUnit.MILLISECONDS);
    if (line == null) {
      throw new AssertionError("no line within " + deadline + " for " + what);
    }
    return line;
  }
}
