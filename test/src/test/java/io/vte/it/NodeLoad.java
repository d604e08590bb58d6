package io.vte.it;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.testkit.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;

/**
 * The {@code load} command of a node process: {@link WriteLoad} runs from one of the node's engines
 * to one or more peers at once, so a test can drive traffic between two node processes (hosts in
 * network namespaces).
 *
 * <p>The command's JSON: {@code engine} (index), {@code targets} ({@code [{server, address, slots,
 * chunk, crcServer}]}: a peer's server name and buffer address, and the {@code host:port} of its
 * {@link CrcServer}, which checks every write in the receiver), {@code seconds}, {@code deadlineMs}
 * (per request), {@code faults} ({@code [{atMs, name, command: [argv]}]}: programs run at offsets
 * from the start, with the first target's load) and {@code watch} ({@code [{name, pid, iface,
 * direction}]}: byte counters, {@code rx} or {@code tx}, of network interfaces sampled every {@code
 * watchMs}, default 100, from {@code /proc/<pid>/net/dev}, so an interface of another process's
 * network namespace can be watched too; pid 0 is this process). The answer has one {@link
 * WriteLoad.Result#toJson()} per target, each with the CRC32C of its source slots ({@code
 * localCrc}), and the samples ({@code watch: {name: [[nanoTime, bytes]]}}, bytes -1 where the
 * interface was missing).
 */
final class NodeLoad {

  private static final Duration COMMAND_DEADLINE = Duration.ofSeconds(30);

  private NodeLoad() {}

  /**
   * @param engine the sending engine
   * @param spec the command's JSON
   * @param sources the source buffer of (engine, target index), slots x chunk bytes, registered on
   *     the engine
   * @return the answer's JSON (without the event name)
   * @throws Exception when a fault command fails or a load hangs
   */
  static JsonObject run(
      TransferEngine engine,
      JsonObject spec,
      BiFunction<TransferEngine, JsonObject, RegisteredBuffer> sources)
      throws Exception {
    Duration duration = Duration.ofMillis(Math.round(spec.getDouble("seconds") * 1000));
    Duration deadline = Duration.ofMillis(spec.getLong("deadlineMs", 30_000L));
    JsonArray targets = spec.getJsonArray("targets");
    List<WriteLoad.Fault> faults = new ArrayList<>();
    for (Object f : spec.getJsonArray("faults", new JsonArray())) {
      JsonObject fault = (JsonObject) f;
      List<String> command = fault.getJsonArray("command").stream().map(String::valueOf).toList();
      faults.add(
          new WriteLoad.Fault(
              Duration.ofMillis(fault.getLong("atMs")),
              fault.getString("name"),
              () -> runCommand(command)));
    }
    List<WriteLoad> loads = new ArrayList<>();
    List<CrcClient> receivers = new ArrayList<>();
    for (int t = 0; t < targets.size(); t++) {
      JsonObject target = targets.getJsonObject(t).copy().put("index", t);
      SegmentHandle segment =
          Await.result(engine.openSegment(target.getString("server")), LocalEngines.WAIT);
      CrcClient receiver = new CrcClient(target.getString("crcServer"));
      receivers.add(receiver);
      loads.add(
          new WriteLoad(
                  engine,
                  sources.apply(engine, target),
                  segment,
                  target.getLong("address"),
                  target.getInteger("slots"),
                  target.getInteger("chunk"),
                  deadline)
              .checkEveryWrite(receiver));
    }
    JsonObject watched = new JsonObject();
    ScheduledExecutorService sampler =
        Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "load-watch"));
    ExecutorService runners = Executors.newCachedThreadPool(r -> new Thread(r, "load-runner"));
    try {
      for (Object w : spec.getJsonArray("watch", new JsonArray())) {
        JsonObject watch = (JsonObject) w;
        JsonArray samples = new JsonArray();
        watched.put(watch.getString("name"), samples);
        long pid = watch.getLong("pid", 0L);
        Path dev = Path.of("/proc", pid == 0 ? "self" : Long.toString(pid), "net", "dev");
        // /proc/net/dev columns after "iface:": 8 receive counters, then transmit; bytes come first
        // in each.
        int column = watch.getString("direction").equals("rx") ? 0 : 8;
        String iface = watch.getString("iface");
        sampler.scheduleAtFixedRate(
            () ->
                samples.add(
                    new JsonArray().add(System.nanoTime()).add(counter(dev, iface, column))),
            0,
            spec.getLong("watchMs", 100L),
            TimeUnit.MILLISECONDS);
      }
      List<Future<WriteLoad.Result>> running = new ArrayList<>();
      for (int t = 0; t < loads.size(); t++) {
        WriteLoad load = loads.get(t);
        List<WriteLoad.Fault> own = t == 0 ? faults : List.of();
        Callable<WriteLoad.Result> run = () -> load.run(duration, own);
        running.add(runners.submit(run));
      }
      JsonArray results = new JsonArray();
      for (int t = 0; t < loads.size(); t++) {
        results.add(running.get(t).get().toJson().put("localCrc", loads.get(t).localCrc()));
      }
      sampler.shutdown();
      sampler.awaitTermination(COMMAND_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
      return new JsonObject().put("results", results).put("watch", watched);
    } finally {
      sampler.shutdownNow();
      runners.shutdownNow();
      for (CrcClient c : receivers) {
        c.close();
      }
    }
  }

  /**
   * @return the counter in {@code column} of {@code iface} in a {@code /proc/.../net/dev}, or -1 if
   *     missing
   */
  private static long counter(Path dev, String iface, int column) {
    try {
      for (String line : Files.readAllLines(dev, StandardCharsets.US_ASCII)) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equals(iface)) {
          return Long.parseLong(line.substring(colon + 1).trim().split("\\s+")[column]);
        }
      }
    } catch (IOException | RuntimeException e) {
      // the process or interface is gone: the test sees a gap
    }
    return -1;
  }

  /** Runs a fault program (e.g. {@code hosts.sh link 0 0 down}); a non-zero exit fails the load. */
  static void runCommand(List<String> command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(COMMAND_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
      p.destroyForcibly();
      throw new IOException("did not finish within " + COMMAND_DEADLINE + ": " + command);
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          command
              + " exited with "
              + p.exitValue()
              + ": "
              + new String(out, StandardCharsets.UTF_8));
    }
  }
}
