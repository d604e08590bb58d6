package io.vte.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real single-member etcd server for tests: the Debian {@code etcd-server} binary started on
 * 127.0.0.1 with free client and peer ports and a temporary data directory. {@link #startIn} starts
 * it elsewhere: through a launcher such as {@code ip netns exec NS}, bound to an address of that
 * network namespace; then every check and {@code etcdctl} call runs through the same launcher.
 *
 * <p>{@link #stop()}, {@link #kill()} and {@link #restart()} simulate outages: a restart reuses the
 * same ports and data directory, so keys, leases and revisions survive as they would on a real
 * member. {@link #close()} kills the process and deletes the data directory. When the binary is
 * missing the harness fails (never skips) and says how to install it.
 *
 * <p>With {@link #start(Tls)} the client listener speaks TLS and requires a client certificate.
 *
 * <p>The binary is {@code /usr/bin/etcd}, or the path in system property {@code vte.etcd.binary}.
 */
public final class EtcdServer implements AutoCloseable {

  /**
   * PEM files for a TLS client listener with client-certificate authentication.
   *
   * @param ca the CA that signed both certificates
   * @param serverCert the server certificate (must name 127.0.0.1)
   * @param serverKey the server key
   * @param clientCert a client certificate, used by the harness's own health checks and etcdctl
   * @param clientKey its key
   */
  public record Tls(Path ca, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {}

  /** System property naming the etcd binary to use instead of {@code /usr/bin/etcd}. */
  public static final String BINARY_PROPERTY = "vte.etcd.binary";

  private static final Duration HEALTH_DEADLINE = Duration.ofSeconds(30);
  private static final Duration EXIT_DEADLINE = Duration.ofSeconds(15);

  private final Path binary;
  private final Path dir;
  private final Path dataDir;
  private final Path log;
  private final int clientPort;
  private final int peerPort;
  private final Tls tls;
  private final List<String> launcher;
  private final String host;
  private final Thread killOnExit;
  private Process process;

  private EtcdServer(
      Path binary,
      Path dir,
      int clientPort,
      int peerPort,
      Tls tls,
      List<String> launcher,
      String host) {
    this.binary = binary;
    this.dir = dir;
    this.dataDir = dir.resolve("data");
    this.log = dir.resolve("etcd.log");
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.tls = tls;
    this.launcher = List.copyOf(launcher);
    this.host = host;
    this.killOnExit = new Thread(this::destroyForcibly, "etcd-server-kill-on-exit");
  }

  /**
   * Starts a new server and waits until it reports healthy.
   *
   * @return the running server
   * @throws AssertionError when the binary is missing or the server does not become healthy in time
   */
  public static EtcdServer start() {
    return start(null);
  }

  /**
   * Starts a new server whose client listener uses TLS with client-certificate authentication.
   *
   * @param tls the PEM files, or null for plain text
   * @return the running server
   * @throws AssertionError when the binary is missing or the server does not become healthy in time
   */
  public static EtcdServer start(Tls tls) {
    return start(tls, List.of(), "127.0.0.1");
  }

  /**
   * Starts a new plain-text server through a launcher that execs it (e.g. {@code ip netns exec NS},
   * for a network namespace of its own), listening on {@code host}, and waits until {@code etcdctl}
   * (through the same launcher) reports it healthy.
   *
   * @param launcher the command the etcd command line is appended to
   * @param host the address etcd listens on and advertises, one of the launcher's network namespace
   * @return the running server
   * @throws AssertionError when the binary is missing or the server does not become healthy in time
   */
  public static EtcdServer startIn(List<String> launcher, String host) {
    return start(null, launcher, host);
  }

  private static EtcdServer start(Tls tls, List<String> launcher, String host) {
    Path binary = Paths.get(System.getProperty(BINARY_PROPERTY, "/usr/bin/etcd"));
    if (!Files.isExecutable(binary)) {
      throw new AssertionError(
          "etcd binary not found at "
              + binary
              + ": run the README's test command"
              + " (./run-tests installs the Debian package etcd-server) or apt-get install -y etcd-server");
    }
    try {
      Path dir = Files.createTempDirectory("vte-etcd-");
      int[] ports = freePorts(2);
      EtcdServer server = new EtcdServer(binary, dir, ports[0], ports[1], tls, launcher, host);
      Runtime.getRuntime().addShutdownHook(server.killOnExit);
      server.launch();
      return server;
    } catch (IOException e) {
      throw new AssertionError("cannot prepare etcd: " + e, e);
    }
  }

  /**
   * @return the client endpoint, {@code http://host:port} ({@code https} with TLS)
   */
  public String endpoint() {
    return (tls == null ? "http" : "https") + "://" + hostPort();
  }

  /**
   * @return {@code host:port} of the client listener (host 127.0.0.1 unless started elsewhere), for
   *     {@code etcd://} URIs
   */
  public String hostPort() {
    return host + ":" + clientPort;
  }

  /**
   * @return the metadata URI for this server, {@code etcd://127.0.0.1:port} ({@code etcds} with
   *     TLS)
   */
  public String uri() {
    return (tls == null ? "etcd" : "etcds") + "://" + hostPort();
  }

  /**
   * @return the client port
   */
  public int clientPort() {
    return clientPort;
  }

  /**
   * @return true while the etcd process is alive
   */
  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /**
   * Stops the server gracefully (SIGTERM) and waits for it to exit. Data is kept for {@link
   * #restart()}.
   */
  public void stop() {
    if (isRunning()) {
      signal("-CONT"); // a paused member must run to act on SIGTERM
      process.destroy();
      awaitExit();
    }
  }

  /** Kills the server (SIGKILL) and waits for it to exit. Data is kept for {@link #restart()}. */
  public void kill() {
    destroyForcibly();
    awaitExit();
  }

  /**
   * Freezes the server (SIGSTOP): connections stay open but nothing answers, like a hung member.
   * Undo with {@link #resume()}.
   */
  public void pause() {
    signal("-STOP");
  }

  /** Lets a {@link #pause() paused} server run again (SIGCONT). */
  public void resume() {
    signal("-CONT");
  }

  /**
   * Starts the server again on the same ports and data directory and waits until it is healthy.
   *
   * @throws IllegalStateException when it is still running
   */
  public void restart() {
    if (isRunning()) {
      throw new IllegalStateException("etcd is still running on " + endpoint());
    }
    launch();
  }

  /**
   * Runs {@code etcdctl} against this server and returns its standard output.
   *
   * @param args the etcdctl arguments, e.g. {@code "get", "/vte", "--prefix"}
   * @return the output
   * @throws AssertionError when etcdctl fails or does not finish within the deadline
   */
  public String etcdctl(String... args) {
    Path ctl = binary.resolveSibling("etcdctl");
    if (!Files.isExecutable(ctl)) {
      throw new AssertionError(
          "etcdctl not found at "
              + ctl
              + ": run the README's test command"
              + " (./run-tests installs the Debian package etcd-client) or apt-get install -y etcd-client");
    }
    List<String> cmd = new java.util.ArrayList<>(launcher);
    cmd.addAll(List.of(ctl.toString(), "--endpoints=" + endpoint()));
    if (tls != null) {
      cmd.addAll(
          List.of(
              "--cacert=" + tls.ca(), "--cert=" + tls.clientCert(), "--key=" + tls.clientKey()));
    }
    cmd.addAll(List.of(args));
    try {
      Process p =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
              .start();
      p.getOutputStream().close();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("etcdctl did not finish: " + cmd);
      }
      String text = new String(out, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new AssertionError("etcdctl " + cmd + " exited with " + p.exitValue() + ": " + text);
      }
      return text;
    } catch (IOException e) {
      throw new AssertionError("cannot run " + ctl + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** Kills the server and deletes its data directory. */
  @Override
  public void close() {
    kill();
    try {
      Runtime.getRuntime().removeShutdownHook(killOnExit);
    } catch (IllegalStateException shuttingDown) {
      // the JVM is exiting; the hook runs anyway
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new AssertionError("cannot delete " + dir + ": " + e, e);
    }
  }

  private void launch() {
    String peer = "http://" + host + ":" + peerPort;
    List<String> cmd = new java.util.ArrayList<>(launcher);
    cmd.addAll(
        List.of(
            binary.toString(),
            "--name",
            "vte-test",
            "--data-dir",
            dataDir.toString(),
            "--listen-client-urls",
            endpoint(),
            "--advertise-client-urls",
            endpoint(),
            "--listen-peer-urls",
            peer,
            "--initial-advertise-peer-urls",
            peer,
            "--initial-cluster",
            "vte-test=" + peer));
    if (tls != null) {
      cmd.addAll(
          List.of(
              "--cert-file",
              tls.serverCert().toString(),
              "--key-file",
              tls.serverKey().toString(),
              "--trusted-ca-file",
              tls.ca().toString(),
              "--client-cert-auth"));
    }
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new AssertionError("cannot start " + binary + ": " + e, e);
    }
    long end = System.nanoTime() + HEALTH_DEADLINE.toNanos();
    try {
      Await.until(
          "etcd healthy on " + endpoint(),
          HEALTH_DEADLINE,
          () -> {
            if (!process.isAlive()) {
              throw new AssertionError(
                  "etcd exited with " + process.exitValue() + ": " + logTail());
            }
            return healthy(Math.max(1, (int) ((end - System.nanoTime()) / 1_000_000)));
          });
    } catch (AssertionError e) {
      destroyForcibly();
      throw new AssertionError(e.getMessage() + "; log: " + logTail(), e);
    }
  }

  /**
   * Reads one unlabeled counter or gauge from etcd's Prometheus endpoint, e.g. {@code
   * etcd_debugging_mvcc_range_total} (how many range reads etcd served). Plain-text servers on
   * 127.0.0.1 only.
   *
   * @param name the metric name
   * @return its value
   * @throws AssertionError when the server does not answer or has no such metric
   */
  public double metric(String name) {
    if (tls != null || !launcher.isEmpty()) {
      throw new IllegalStateException(
          "metric() reads plain-text servers in this network namespace only");
    }
    try {
      String reply = httpGet("/metrics", 5000);
      for (String line : reply.split("\n")) {
        if (line.startsWith(name + " ")) {
          return Double.parseDouble(line.substring(name.length() + 1).trim());
        }
      }
      throw new AssertionError("etcd on " + endpoint() + " has no metric " + name);
    } catch (IOException e) {
      throw new AssertionError("cannot read etcd metrics: " + e, e);
    }
  }

  private boolean healthy(int timeoutMs) {
    if (tls != null || !launcher.isEmpty()) { // etcdctl can reach where this JVM's sockets cannot
      try {
        return etcdctl("endpoint", "health").contains("is healthy");
      } catch (AssertionError notYet) {
        return false;
      }
    }
    try {
      String reply = httpGet("/health", timeoutMs);
      return reply.startsWith("HTTP/1.")
          && reply.contains(" 200 ")
          && reply.contains("\"health\":\"true\"");
    } catch (IOException notYet) {
      return false;
    }
  }

  private String httpGet(String path, int timeoutMs) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", clientPort), Math.min(timeoutMs, 1000));
      s.setSoTimeout(Math.min(timeoutMs, 5000));
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private void signal(String signal) {
    if (!isRunning()) {
      throw new IllegalStateException("etcd is not running on " + endpoint());
    }
    try {
      Process kill =
          new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
      if (!kill.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS) || kill.exitValue() != 0) {
        throw new AssertionError("kill " + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new AssertionError("cannot signal etcd: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private void destroyForcibly() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  private void awaitExit() {
    if (process == null) {
      return;
    }
    try {
      if (!process.waitFor(EXIT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("etcd did not exit within " + EXIT_DEADLINE);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static int[] freePorts(int n) throws IOException {
    ServerSocket[] sockets = new ServerSocket[n];
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        sockets[i] = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        ports[i] = sockets[i].getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        if (s != null) {
          s.close();
        }
      }
    }
  }
}
