package io.vte.cli;

import static io.vte.api.OptionFields.field;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.DeviceStatus;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.OptionFields;
import io.vte.api.OptionKind;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.cli.bench.fault.FaultScheduler;
import io.vte.cli.bench.fault.FaultStep;
import io.vte.cli.common.Blocking;
import io.vte.cli.common.ByteSize;
import io.vte.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vte links --target host:port}: starts a short-lived engine, opens the peer's segment and
 * probes every rail (local device × remote device) with tiny READs, printing the endpoints, the
 * rails and their health (ok, or failed with the typed cause) with the latency of the first probe
 * (which connects the endpoint) and of a second, warm one.
 *
 * <p>Each probe is pinned to its rail ({@link TransferOptions#setRail}): it travels that rail or
 * fails, never another one, so a rail whose local port, peer device or path is down is reported
 * failed. With {@code --inject} a fault schedule is played on the probing engine's soft devices
 * before the probes, for drills.
 */
@Command(
    name = "links",
    mixinStandardHelpOptions = true,
    header = "Probe every rail to a peer and print its health.",
    description =
        "Probe every rail (local device x remote device) to a peer with a tiny transfer and print their health.",
    defaultValueProvider = FlagFields.Defaults.class)
public final class LinksCommand implements Callable<Integer> {

  private static final Duration STEP = Duration.ofSeconds(60);

  /** The flags with a default and a range: names, defaults and ranges. */
  static final FlagFields<LinksCommand> FLAGS =
      FlagFields.of(
          LinksCommand.class,
          OptionFields.of(
              field(
                      "bytes",
                      OptionKind.BYTES,
                      64,
                      c -> c.bytes,
                      (LinksCommand c, Integer v) -> c.bytes = v)
                  .check(n -> n >= 1 && n <= 1 << 20, "1..1048576"),
              field(
                      "timeoutMs",
                      OptionKind.MILLIS,
                      Duration.ofSeconds(5),
                      c -> Duration.ofMillis(c.timeoutMs),
                      (LinksCommand c, Duration v) -> c.timeoutMs = v.toMillis())
                  .check(d -> d.toMillis() >= 1, ">= 1 ms")));

  @Spec private CommandSpec spec;

  @Option(
      names = "--target",
      required = true,
      paramLabel = "HOST:PORT",
      description = "the peer's server or segment name")
  private String target;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "engine options JSON of the probing engine")
  private Path config;

  @Option(
      names = "--bytes",
      converter = ByteSize.IntConverter.class,
      paramLabel = "BYTES",
      description = "bytes per probe, e.g. 64 or 4K (default: ${DEFAULT-VALUE})")
  private int bytes;

  @Option(names = "--timeout-ms", description = "deadline per probe (default: ${DEFAULT-VALUE})")
  private long timeoutMs;

  @Option(names = "--json", description = "print one JSON object")
  private boolean json;

  @Option(
      names = "--inject",
      paramLabel = "KIND:DEVICE[:FRACTION]@TIME[,...]",
      description =
          "faults on the probing engine's soft devices, played in order before the probes"
              + " (a drill: e.g. port-down:soft1@0s)")
  private String inject;

  /** Creates the command (picocli instantiates it). */
  public LinksCommand() {}

  @Override
  public Integer call() throws Exception {
    FLAGS.validate(this, spec.commandLine());
    List<FaultStep> faults;
    try {
      faults = inject == null ? List.of() : FaultStep.parseAll(inject);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    EngineOptions options =
        ExitCodes.starting(() -> EngineOptions.fromJson(ServeCommand.NodeConfig.read(config)));
    Vertx vertx = Vertx.vertx();
    TransferEngine engine = null;
    try {
      engine = ExitCodes.starting(() -> await(TransferEngine.create(vertx, options)));
      TransferEngine started = engine;
      if (!faults.isEmpty()) {
        List<String> names =
            engine.diagnostics().devices().stream().map(DeviceStatus::name).toList();
        ExitCodes.starting(
            () -> {
              FaultScheduler.requireKnownDevices(faults, names);
              try (FaultScheduler scheduler = FaultScheduler.forEngine(started, faults, names)) {
                scheduler.runInOrder();
              }
              return null;
            });
      }
      SegmentHandle segment = ExitCodes.starting(() -> await(started.openSegment(target)));
      JsonObject report = probe(engine, segment);
      print(report);
      return report.getInteger("failed") == 0 ? ExitCodes.OK : ExitCodes.RUN_FAILED;
    } finally {
      if (engine != null) {
        await(engine.close());
      }
      await(vertx.close());
    }
  }

  private JsonObject probe(TransferEngine engine, SegmentHandle segment) throws Exception {
    List<DeviceStatus> locals = engine.diagnostics().devices();
    List<SegmentDevice> remotes = segment.devices();
    JsonObject report =
        new JsonObject()
            .put("local", engine.serverName())
            .put("target", target)
            .put("segment", segment.name())
            .put("server", segment.serverName());
    JsonArray localJson = new JsonArray();
    locals.forEach(
        l ->
            localJson.add(
                new JsonObject()
                    .put("device", l.name())
                    .put("state", l.portState())
                    .put("gid", l.gid())));
    JsonArray remoteJson = new JsonArray();
    remotes.forEach(
        r -> remoteJson.add(new JsonObject().put("device", r.name()).put("active", r.active())));
    report.put("localDevices", localJson).put("remoteDevices", remoteJson);
    JsonArray rails = new JsonArray();
    int failed = 0;
    // the same-host rail would carry every probe to shared memory: the network rails are probed
    // on another buffer
    SegmentBuffer remoteBuffer =
        segment.buffers().stream()
            .filter(b -> b.length() >= bytes && !b.isSharedMemory())
            .findFirst()
            .orElse(null);
    SegmentBuffer shared =
        segment.buffers().stream()
            .filter(b -> b.length() >= bytes && b.isSharedMemory())
            .findFirst()
            .orElse(null);
    ByteBuffer memory = ByteBuffer.allocateDirect(bytes);
    RegisteredBuffer local =
        remoteBuffer == null && shared == null ? null : await(engine.register(memory, "cpu:0"));
    // two rounds: the first connects each rail's endpoint, the second measures a warm transfer
    for (DeviceStatus l : locals) {
      for (SegmentDevice r : remotes) {
        TransferOptions pinned =
            new TransferOptions()
                .setDeadline(Duration.ofMillis(timeoutMs))
                .setRail(l.name(), r.name());
        JsonObject first = railProbe(engine, local, segment, remoteBuffer, shared, pinned);
        JsonObject probe =
            "ok".equals(first.getString("status"))
                ? railProbe(engine, local, segment, remoteBuffer, shared, pinned)
                : first;
        JsonObject rail =
            new JsonObject()
                .put("local", l.name())
                .put("remote", r.name())
                .mergeIn(probe)
                .put("latencyUs", probe.getDouble("latencyUs"))
                .put("firstUs", first.getDouble("latencyUs"));
        if (!"ok".equals(rail.getString("status"))) {
          failed++;
        }
        rails.add(rail);
      }
    }
    if (shared != null) {
      JsonObject rail = sameHostProbe(engine, local, segment, shared);
      if (!"ok".equals(rail.getString("status"))) {
        failed++;
      }
      rails.add(rail);
    }
    if (local != null) {
      await(engine.unregister(local));
    }
    return report.put("rails", rails).put("failed", failed);
  }

  /** One probe of a network rail, or {@code untested} when the peer has no buffer for it. */
  private JsonObject railProbe(
      TransferEngine engine,
      RegisteredBuffer local,
      SegmentHandle segment,
      SegmentBuffer remoteBuffer,
      SegmentBuffer shared,
      TransferOptions pinned)
      throws Exception {
    if (remoteBuffer == null) {
      return new JsonObject()
          .put("status", "untested")
          .put(
              "cause",
              "the peer has no registered buffer of "
                  + bytes
                  + " bytes"
                  + (shared == null ? "" : " outside shared memory"));
    }
    return probeOnce(engine, local, segment, remoteBuffer.address(), pinned);
  }

  /**
   * Probes the same-host rail with two READs of a shared-memory buffer (the first maps it); the
   * rail's own status says whether it carried them or gave them to the network rails.
   */
  private JsonObject sameHostProbe(
      TransferEngine engine, RegisteredBuffer local, SegmentHandle segment, SegmentBuffer shared)
      throws Exception {
    TransferOptions options = new TransferOptions().setDeadline(Duration.ofMillis(timeoutMs));
    JsonObject first = probeOnce(engine, local, segment, shared.address(), options);
    JsonObject probe = probeOnce(engine, local, segment, shared.address(), options);
    JsonObject rail =
        new JsonObject()
            .put("local", RailStatus.SAME_HOST_DEVICE)
            .put("remote", "shm:" + shared.sharedMemoryPath())
            .mergeIn("ok".equals(first.getString("status")) ? probe : first)
            .put("latencyUs", probe.getDouble("latencyUs"))
            .put("firstUs", first.getDouble("latencyUs"));
    for (RailStatus s : engine.diagnostics().rails()) {
      if (s.sameHost() && s.heldDown()) {
        rail.put("status", "failed").put("cause", "same-host rail refused: " + s.lastFailure());
        if (s.lastFailure() != null) {
          rail.put("code", s.lastFailure().code().name());
        }
      }
    }
    return rail;
  }

  private JsonObject probeOnce(
      TransferEngine engine,
      RegisteredBuffer local,
      SegmentHandle segment,
      long remote,
      TransferOptions options)
      throws Exception {
    long retriesBefore = engine.diagnostics().counters().retries();
    long start = System.nanoTime();
    BatchResult result =
        await(
            engine
                .submit(List.of(TransferRequest.read(local, 0, segment, remote, bytes)), options)
                .result()
                .recover(
                    e ->
                        Future.succeededFuture(
                            new BatchResult(
                                List.of(
                                    new RequestResult(
                                        RequestStatus.FAILED,
                                        0,
                                        e instanceof VteException v
                                            ? v
                                            : new VteException(
                                                ErrorCode.INTERNAL,
                                                String.valueOf(e.getMessage()))))))));
    JsonObject probe =
        new JsonObject().put("latencyUs", Math.round((System.nanoTime() - start) / 100.0) / 10.0);
    RequestResult q = result.requests().get(0);
    long retries = engine.diagnostics().counters().retries() - retriesBefore;
    if (q.cause() != null) {
      return probe
          .put("status", "failed")
          .put("code", q.cause().code().name())
          .put("cause", q.cause().getMessage());
    }
    return retries == 0
        ? probe.put("status", "ok")
        : probe.put("status", "retried").put("retries", retries);
  }

  private void print(JsonObject report) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      out.println(report.encode());
      out.flush();
      return;
    }
    out.printf(
        "local  %s -> target %s (segment %s, server %s)%n",
        report.getString("local"),
        report.getString("target"),
        report.getString("segment"),
        report.getString("server"));
    for (Object o : report.getJsonArray("localDevices")) {
      JsonObject d = (JsonObject) o;
      out.printf(
          "  local device  %-10s %-7s gid %s%n",
          d.getString("device"), d.getString("state"), d.getString("gid"));
    }
    for (Object o : report.getJsonArray("remoteDevices")) {
      JsonObject d = (JsonObject) o;
      out.printf(
          "  remote device %-10s %s%n",
          d.getString("device"), d.getBoolean("active") ? "active" : "inactive");
    }
    out.printf(
        "%-12s %-12s %-9s %12s %12s  %s%n",
        "LOCAL", "REMOTE", "STATUS", "FIRST_US", "LATENCY_US", "CAUSE");
    for (Object o : report.getJsonArray("rails")) {
      JsonObject r = (JsonObject) o;
      out.printf(
          "%-12s %-12s %-9s %12s %12s  %s%n",
          r.getString("local"),
          r.getString("remote"),
          r.getString("status"),
          micros(r.getDouble("firstUs")),
          micros(r.getDouble("latencyUs")),
          r.getString("cause", ""));
    }
    out.printf(
        "%d rail(s), %d not ok%n",
        report.getJsonArray("rails").size(), report.getInteger("failed"));
    out.flush();
  }

  private static String micros(Double us) {
    return us == null ? "-" : String.format("%.1f", us);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return Blocking.await(f, STEP, "a vte links step");
  }
}
