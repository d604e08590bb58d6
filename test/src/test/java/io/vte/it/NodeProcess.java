package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link NodeMain} child JVM on the test class path: reads its JSON lines with deadlines, sends
 * it commands, and never outlives the test ({@link #close()} kills it and waits for it).
 */
public final class NodeProcess implements AutoCloseable {

  private static final Path LOGS = Path.of("target", "node-logs");

  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<JsonObject> lines = new LinkedBlockingQueue<>();
  private final List<JsonObject> ready = new ArrayList<>();

  private NodeProcess(Process process, int engines) throws InterruptedException {
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(this::readLines, "node-" + process.pid() + "-stdout");
    reader.setDaemon(true);
    reader.start();
    for (int e = 0; e < engines; e++) {
      ready.add(expect("ready", LocalEngines.WAIT));
    }
  }

  /**
   * Starts a node and waits until all its engines are ready.
   *
   * @param name device name prefix and log file name
   * @param args further {@code key=value} arguments of {@link NodeMain}
   * @return the running node
   * @throws IOException when the JVM cannot start
   * @throws InterruptedException when interrupted
   */
  public static NodeProcess start(String name, String... args)
      throws IOException, InterruptedException {
    return start(List.of(), name, args);
  }

  /**
   * Starts a node through a launcher, e.g. {@code ip netns exec NS} to run it on a host of its own,
   * and waits until all its engines are ready. The launcher must exec the JVM (so this process is
   * the node's).
   *
   * @param launcher the command the JVM's command line is appended to; empty for none
   * @param name device name prefix and log file name
   * @param args further {@code key=value} arguments of {@link NodeMain}
   * @return the running node
   * @throws IOException when the JVM cannot start
   * @throws InterruptedException when interrupted
   */
  public static NodeProcess start(List<String> launcher, String name, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(launcher);
    command.addAll(
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-XX:MaxDirectMemorySize=1g",
            "-cp",
            System.getProperty("java.class.path"),
            NodeMain.class.getName(),
            "name=" + name));
    command.addAll(List.of(args));
    int engines = 1;
    for (String a : args) {
      if (a.startsWith("engines=")) {
        engines = Integer.parseInt(a.substring("engines=".length()));
      } else if (a.startsWith("devices=")) {
        engines = a.split("/").length;
      }
    }
    Files.createDirectories(LOGS);
    File log = LOGS.resolve(name + "-" + System.nanoTime() + ".log").toFile();
    Process p = new ProcessBuilder(command).redirectError(log).start();
    try {
      return new NodeProcess(p, engines);
    } catch (Throwable t) {
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
      throw t;
    }
  }

  private void readLines() {
    try (BufferedReader r =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String l = r.readLine(); l != null; l = r.readLine()) {
        if (l.startsWith("{")) {
          lines.add(new JsonObject(l));
        }
      }
    } catch (IOException | RuntimeException ignored) {
      // the process ended; waiters see their deadline
    }
  }

  /**
   * @param engine index of the engine in the node
   * @return its ready line: server, address, length, devicePorts
   */
  public JsonObject ready(int engine) {
    return ready.get(engine);
  }

  /**
   * @return the arguments that restart this node (engine 0) on the same handshake and device ports:
   *     {@code rpcPort=...} and {@code devicePorts=...}
   */
  public List<String> sameAddressArgs() {
    StringBuilder ports = new StringBuilder();
    ready(0)
        .getJsonArray("devicePorts")
        .forEach(p -> ports.append(ports.length() == 0 ? "" : ",").append(p));
    return List.of("rpcPort=" + server().split(":")[1], "devicePorts=" + ports);
  }

  /**
   * @return the server name of engine 0
   */
  public String server() {
    return ready.get(0).getString("server");
  }

  /**
   * @return the buffer address of engine 0
   */
  public long address() {
    return ready.get(0).getLong("address");
  }

  /**
   * @return the OS process
   */
  public Process process() {
    return process;
  }

  /**
   * @param event the event name to wait for (other lines are skipped, errors fail the wait)
   * @param deadline how long to wait
   * @return the line
   * @throws InterruptedException when interrupted
   */
  public JsonObject expect(String event, Duration deadline) throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    while (true) {
      JsonObject line = lines.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
      assertNotNull(
          line, "node " + process.pid() + " printed no '" + event + "' within " + deadline);
      if (line.getString("event").equals("error")) {
        throw new AssertionError("node " + process.pid() + " failed: " + line.encode());
      }
      if (line.getString("event").equals(event)) {
        return line;
      }
    }
  }

  /**
   * Sends a command and waits for its answer.
   *
   * @param command the command line
   * @param event the answer's event name
   * @return the answer
   * @throws IOException when the node's stdin is closed
   * @throws InterruptedException when interrupted
   */
  public JsonObject request(String command, String event) throws IOException, InterruptedException {
    send(command);
    return expect(event, LocalEngines.WAIT);
  }

  /**
   * @param command a command line, not waiting for an answer
   * @throws IOException when the node's stdin is closed
   */
  public synchronized void send(String command) throws IOException {
    stdin.write(command + "\n");
    stdin.flush();
  }

  /**
   * @return the figures of engine 0
   */
  public EngineStats stats() throws IOException, InterruptedException {
    return EngineStats.fromJson(request("stats", "stats").getJsonObject("stats"));
  }

  /**
   * @return the node JVM's memory and thread figures, after a GC
   */
  public JvmFigures jvm() throws IOException, InterruptedException {
    return JvmFigures.fromJson(request("stats", "stats").getJsonObject("jvm"));
  }

  /**
   * @return the buffer CRC32C of engine {@code engine}
   */
  public long crc(int engine) throws IOException, InterruptedException {
    return request("crc", "crc").getJsonArray("crc").getLong(engine);
  }

  /**
   * @return {@code host:port} of the node's {@link CrcServer}, which answers CRCs of its buffers'
   *     regions
   */
  public String crcServer() {
    return ready(0).getString("crcServer");
  }

  /**
   * @param address an address in one of the node's buffers
   * @param length bytes
   * @return CRC32C of the node's memory there, now (from its {@link CrcServer})
   * @throws IOException when the node cannot be asked
   */
  public long crcOf(long address, int length) throws IOException {
    try (CrcClient c = new CrcClient(crcServer())) {
      return c.crc(address, length);
    }
  }

  /** Kills the node if it still runs and waits for it to be gone. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
    }
    boolean gone;
    try {
      gone = process.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(
          "interrupted while waiting for node " + process.pid() + " to die", e);
    }
    if (!gone) {
      throw new AssertionError("node " + process.pid() + " survived SIGKILL for 30 s");
    }
  }
}
