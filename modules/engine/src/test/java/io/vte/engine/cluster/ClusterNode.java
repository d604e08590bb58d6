package io.vte.engine.cluster;

import io.vte.testkit.LinePump;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The parent's handle on one {@link ClusterNodeMain} child JVM: start, one command at a time, kill.
 */
final class ClusterNode implements AutoCloseable {

  private static final Duration REPLY_WAIT = Duration.ofSeconds(60);

  final String name;
  final long seed;
  private final Process process;
  private final Writer commands;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private String serverName;

  private ClusterNode(String name, long seed, Process process) {
    this.name = name;
    this.seed = seed;
    this.process = process;
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    LinePump.start(process.getInputStream(), lines::add, "cluster-node-" + name);
  }

  /** Spawns a node; call {@link #awaitReady()} before sending commands. */
  static ClusterNode spawn(
      String etcdUri, String prefix, String name, int slot, long seed, int ttlSeconds) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    try {
      Process p =
          new ProcessBuilder(
                  java,
                  "-Xmx192m",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  ClusterNodeMain.class.getName(),
                  etcdUri,
                  prefix,
                  name,
                  Integer.toString(slot),
                  Long.toString(seed),
                  Integer.toString(ttlSeconds))
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .start();
      return new ClusterNode(name, seed, p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits for READY. @return this node's server name (host:port of its RPC service) */
  String awaitReady() {
    serverName = expect("READY").split(" ")[1];
    return serverName;
  }

  String serverName() {
    return serverName;
  }

  /** Sends one command and returns its reply line. */
  String ask(String command) {
    try {
      commands.write(command + "\n");
      commands.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("node " + name + " is gone", e);
    }
    return expect("");
  }

  /** SIGKILL: no unpublish, no lease revoke; only the lease TTL removes its entries. */
  void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(30, TimeUnit.SECONDS);
  }

  private String expect(String prefix) {
    long end = System.nanoTime() + REPLY_WAIT.toNanos();
    try {
      while (System.nanoTime() < end) {
        String line = lines.poll(100, TimeUnit.MILLISECONDS);
        if (line != null && line.startsWith(prefix)) {
          return line;
        }
        if (line == null && !process.isAlive() && lines.isEmpty()) {
          throw new AssertionError(
              "node " + name + " exited with " + process.exitValue() + " before '" + prefix + "'");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
    throw new AssertionError(
        "node " + name + " said nothing starting with '" + prefix + "' within " + REPLY_WAIT);
  }

  /** Asks the node to exit (EXIT, then SIGKILL if it lingers). */
  @Override
  public void close() {
    if (process.isAlive()) {
      try {
        commands.write("EXIT\n");
        commands.flush();
      } catch (IOException ignored) {
        // already gone
      }
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          kill();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
    }
  }
}
