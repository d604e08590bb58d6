package io.vte.it;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.testkit.Await;
import io.vte.verbs.DirectMemory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A node process of the suite: starts {@code engines} engines (each {@value LocalEngines#DEVICES}
 * soft devices, {@value LocalEngines#WORKERS} owners per device), registers one buffer per engine,
 * prints one JSON line per engine ({@code
 * {"event":"ready","engine","server","address","length","devicePorts","crcServer"}}: {@code
 * crcServer} is the {@code host:port} of a {@link CrcServer} over its buffers, on the handshake
 * address) and obeys line commands on stdin, answering with one JSON line each:
 *
 * <ul>
 *   <li>{@code fault port-down <device index>} / {@code fault port-up <device index>} (engine 0)
 *   <li>{@code fault drop <device index> <fraction> <seed>} / {@code fault clear <device index>}:
 *       frame drops
 *   <li>{@code stats [engine]}: the owner figures of engine 0 (or the given one, {@link
 *       EngineStats}) and the JVM's ({@link JvmFigures})
 *   <li>{@code load <json>}: continuous writes from one of this node's engines to other nodes
 *       ({@link NodeLoad}), answered with {@code {"event":"load", "results", "watch"}} when the run
 *       ends
 *   <li>{@code crc}: the CRC32C of every engine's buffer
 *   <li>{@code quit}: closes everything, prints {@code bye}, exits 0
 * </ul>
 *
 * On SIGTERM a shutdown hook unregisters the buffers, watches them for 500 ms, closes the engines,
 * prints {@code {"event":"terminated","changedAfterUnregister"}} and halts with status 0 (1 if
 * closing failed).
 *
 * <p>Arguments are {@code key=value}: {@code name} (device prefix), {@code firstIp} (last octet of
 * the first device address), {@code buffer} (bytes), {@code rpcPort}, {@code devicePorts} (comma
 * list), {@code engines}. On hosts of their own ({@link io.vte.it.hosts.NetnsHosts}) the devices
 * and the handshake address are given instead: {@code devices} (the device specs {@code
 * name@ip[:port]} of each engine, comma-separated, engines separated by {@code /}; sets the engine
 * count), {@code rpcHost} (the handshake server's bind address and server name), and optionally
 * {@code metadata} (the metadata URI) and {@code segmentName}; {@code qp=default} keeps the
 * engine's own QP timeout and retries instead of the suite's short ones.
 */
public final class NodeMain {

  private static final Duration WAIT = LocalEngines.WAIT;
  private static final long EXPOSURE_NANOS = 500_000_000L;

  private final Vertx vertx = Vertx.vertx(LocalEngines.vertxOptions());
  private final List<TransferEngine> engines = new ArrayList<>();
  private final List<RegisteredBuffer> buffers = new CopyOnWriteArrayList<>();
  private final Map<String, RegisteredBuffer> loadSources = new HashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  private NodeMain() {}

  /**
   * @param args {@code key=value} arguments, see the class comment
   * @throws Exception on a start failure (the parent test sees the process die)
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> a =
        new HashMap<>(
            Map.of(
                "name",
                "node",
                "firstIp",
                "10",
                "buffer",
                "16777216",
                "rpcPort",
                "0",
                "devicePorts",
                "0,0,0,0",
                "engines",
                "1"));
    for (String arg : args) {
      int eq = arg.indexOf('=');
      a.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    new NodeMain().run(a);
  }

  private void run(Map<String, String> a) throws Exception {
    String[] deviceGroups = a.containsKey("devices") ? a.get("devices").split("/") : null;
    int count = deviceGroups != null ? deviceGroups.length : Integer.parseInt(a.get("engines"));
    int length = Integer.parseInt(a.get("buffer"));
    int firstIp = Integer.parseInt(a.get("firstIp"));
    String[] portList = a.get("devicePorts").split(",");
    int[] ports = new int[LocalEngines.DEVICES];
    for (int i = 0; i < ports.length; i++) {
      ports[i] = Integer.parseInt(portList[i]);
    }
    Runtime.getRuntime().addShutdownHook(new Thread(this::terminate, "node-sigterm"));
    String rpcHost = a.getOrDefault("rpcHost", "127.0.0.1");
    CrcServer crcs = CrcServer.start(rpcHost, buffers);
    for (int e = 0; e < count; e++) {
      int rpcPort = e == 0 ? Integer.parseInt(a.get("rpcPort")) : 0;
      EngineOptions options =
          deviceGroups != null
              ? LocalEngines.options(List.of(deviceGroups[e].split(",")), a.get("rpcHost"), rpcPort)
              : LocalEngines.options(
                  a.get("name") + e,
                  firstIp + e * LocalEngines.DEVICES,
                  e == 0 ? ports : null,
                  rpcPort);
      if (a.containsKey("metadata")) {
        options.setMetadataUri(a.get("metadata"));
      }
      if ("default".equals(a.get("qp"))) { // the engine's own QP timeout and retries
        EngineOptions defaults = new EngineOptions();
        options.setQpTimeout(defaults.getQpTimeout()).setQpRetryCount(defaults.getQpRetryCount());
      }
      if (a.containsKey("segmentName")) {
        options.setSegmentName(a.get("segmentName") + (count > 1 ? "-" + e : ""));
      }
      TransferEngine engine = Await.result(TransferEngine.create(vertx, options), WAIT);
      engines.add(engine);
      long address =
          DirectMemory.allocate(
              length); // freed when the process exits: SIGTERM reads it after close
      Pattern.fill(address, length, 0);
      RegisteredBuffer buffer = Await.result(engine.register(address, length, "cpu:0"), WAIT);
      buffers.add(buffer);
      JsonArray devicePorts = new JsonArray();
      engine.diagnostics().devices().forEach(d -> devicePorts.add(d.lid()));
      // Ready means answering: the first GetSegment a fresh JVM serves runs cold code and, on a
      // loaded machine, took
      // longer than a peer's 5 s handshake deadline; asking itself first warms that path up.
      // (By its segment name: with etcd metadata the segment is found by name, not by server name.)
      Await.until(
          "node " + e + " answers its own GetSegment",
          WAIT,
          () ->
              Await.result(
                  engine.openSegment(engine.diagnostics().segmentName()).map(true).otherwise(false),
                  WAIT));
      print(
          new JsonObject()
              .put("event", "ready")
              .put("engine", e)
              .put("server", engine.serverName())
              .put("address", buffer.address())
              .put("length", buffer.length())
              .put("devicePorts", devicePorts)
              .put("crcServer", rpcHost + ":" + crcs.port())
              .put("pid", ProcessHandle.current().pid()));
    }
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      if (line.equals("quit")) {
        break;
      }
      try {
        print(
            line.startsWith("load ")
                ? load(new JsonObject(line.substring(5)))
                : command(line.trim().split("\\s+")));
      } catch (Exception ex) {
        print(
            new JsonObject()
                .put("event", "error")
                .put("command", line)
                .put("message", String.valueOf(ex)));
      }
    }
    if (closed.compareAndSet(false, true)) {
      closeAll();
      print(new JsonObject().put("event", "bye"));
    }
    System.exit(0);
  }

  private JsonObject command(String[] words) {
    TransferEngine engine = engines.get(0);
    switch (words[0]) {
      case "fault":
        {
          String device = engine.diagnostics().devices().get(Integer.parseInt(words[2])).name();
          if (words[1].equals("port-down")) {
            LocalEngines.faults(engine).portDown(device);
          } else if (words[1].equals("port-up")) {
            LocalEngines.faults(engine).portUp(device);
          } else if (words[1].equals("drop")) {
            LocalEngines.faults(engine)
                .dropFrames(device, Double.parseDouble(words[3]), Long.parseLong(words[4]));
          } else if (words[1].equals("clear")) {
            LocalEngines.faults(engine).clearFrameFaults(device);
          } else {
            throw new IllegalArgumentException("unknown fault " + words[1]);
          }
          return new JsonObject()
              .put("event", "fault")
              .put("fault", words[1])
              .put("device", device);
        }
      case "stats":
        return new JsonObject()
            .put("event", "stats")
            .put(
                "stats",
                EngineStats.of(engines.get(words.length > 1 ? Integer.parseInt(words[1]) : 0))
                    .toJson())
            .put("jvm", JvmFigures.take().toJson());
      case "crc":
        {
          JsonArray crcs = new JsonArray();
          buffers.forEach(b -> crcs.add(Pattern.crc(b.address(), (int) b.length())));
          return new JsonObject().put("event", "crc").put("crc", crcs);
        }
      default:
        throw new IllegalArgumentException("unknown command " + words[0]);
    }
  }

  private JsonObject load(JsonObject spec) throws Exception {
    TransferEngine engine = engines.get(spec.getInteger("engine", 0));
    return NodeLoad.run(engine, spec, this::loadSource).put("event", "load");
  }

  /**
   * The source slots of one load target, kept for the next run so warm-up and measured runs share
   * them.
   */
  private RegisteredBuffer loadSource(TransferEngine engine, JsonObject target) {
    int length = target.getInteger("slots") * target.getInteger("chunk");
    return loadSources.computeIfAbsent(
        engines.indexOf(engine) + "/" + target.getInteger("index") + "/" + length,
        k -> Await.result(engine.register(DirectMemory.allocate(length), length, "cpu:0"), WAIT));
  }

  /** SIGTERM: refuse remote access first, prove nothing lands afterwards, then close. */
  private void terminate() {
    if (!closed.compareAndSet(false, true)) {
      System.err.println("SIGTERM: already closed");
      return;
    }
    System.err.println("SIGTERM: closing");
    boolean changed = false;
    int status = 0;
    try {
      long[] crcs = new long[buffers.size()];
      for (int i = 0; i < buffers.size(); i++) {
        Await.result(engines.get(i).unregister(buffers.get(i)), WAIT);
        crcs[i] = Pattern.crc(buffers.get(i).address(), (int) buffers.get(i).length());
      }
      System.err.println("SIGTERM: buffers unregistered");
      long end = System.nanoTime() + EXPOSURE_NANOS;
      while (System.nanoTime() < end && !changed) {
        for (int i = 0; i < buffers.size(); i++) {
          changed |=
              Pattern.crc(buffers.get(i).address(), (int) buffers.get(i).length()) != crcs[i];
        }
      }
      closeAll();
      System.err.println("SIGTERM: engines closed");
      for (int i = 0; i < buffers.size(); i++) {
        changed |= Pattern.crc(buffers.get(i).address(), (int) buffers.get(i).length()) != crcs[i];
      }
      print(new JsonObject().put("event", "terminated").put("changedAfterUnregister", changed));
    } catch (Throwable t) {
      print(
          new JsonObject()
              .put("event", "error")
              .put("command", "SIGTERM")
              .put("message", String.valueOf(t)));
      status = 1;
    }
    Runtime.getRuntime().halt(status);
  }

  private void closeAll() {
    for (TransferEngine engine : engines) {
      Await.result(engine.close(), WAIT);
    }
    Await.result(vertx.close(), WAIT);
  }

  private static synchronized void print(JsonObject line) {
    System.out.println(line.encode());
    System.out.flush();
  }
}
