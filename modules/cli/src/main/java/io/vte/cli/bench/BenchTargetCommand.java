package io.vte.cli.bench;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vte bench target}: starts an engine (devices {@code soft0..}), registers one buffer filled with the
 * target pattern, prints its server name and serves until SIGINT/SIGTERM, then closes cleanly. With
 * {@code --inject} it plays the schedule on its own devices, timed from when it starts serving, and prints a
 * line on stderr as each step runs.
 */
@Command(name = "target", mixinStandardHelpOptions = true,
    description = {"Serve a registered buffer for 'vte bench initiator' until SIGINT/SIGTERM; prints the server name."})
public final class BenchTargetCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Mixin
  private EngineFlags engineFlags;

  @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address of the handshake service (default ${DEFAULT-VALUE}).")
  private String host;

  @Option(names = "--port", defaultValue = "0", description = "Port of the handshake service, 0 for any (default ${DEFAULT-VALUE}).")
  private int port;

  @Option(names = "--buffer-size", defaultValue = "268435456",
      description = "Bytes of the registered buffer (default ${DEFAULT-VALUE}).")
  private long bufferSize;

  @Option(names = "--json", description = "Announce the server name as one JSON object.")
  private boolean json;

  /** Creates the command (picocli instantiates it). */
  public BenchTargetCommand() {}

  @Override
  public Integer call() throws Exception {
    List<FaultStep> faults;
    try {
      engineFlags.validate();
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("--port must be 0..65535, got " + port);
      }
      if (bufferSize < 4096 || bufferSize > LoadFlags.MAX_REGION) {
        throw new IllegalArgumentException("--buffer-size must be 4096..536870912 bytes, got " + bufferSize);
      }
      faults = engineFlags.faults();
      FaultScheduler.requireKnownDevices(faults, engineFlags.deviceNames("soft"));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    CountDownLatch stop = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.countDown();
      try {
        closed.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "vte-bench-target-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (BenchTarget target = BenchTarget.start(engineFlags.engineOptions("soft").setRpcHost(host).setRpcPort(port),
        bufferSize)) {
      PrintWriter out = spec.commandLine().getOut();
      if (json) {
        out.println(new JsonObject().put("server_name", target.serverName()).put("buffer_bytes", target.length())
            .put("devices", engineFlags.deviceNames("soft")).encode());
      } else {
        out.printf(Locale.ROOT, "vte bench target: serving %s (%d B registered on %s); stop with Ctrl-C or SIGTERM%n",
            target.serverName(), target.length(), String.join(",", engineFlags.deviceNames("soft")));
      }
      out.flush();
      PrintWriter err = spec.commandLine().getErr();
      try (FaultScheduler scheduler = faults.isEmpty() ? null
          : FaultScheduler.forEngine(target.engine(), faults, engineFlags.deviceNames("soft")).onStep(line -> {
            err.println("vte bench target: fault " + line);
            err.flush();
          })) {
        if (scheduler != null) {
          scheduler.start();
        }
        stop.await();
      }
    } finally {
      closed.countDown();
      if (stop.getCount() > 0) {
        Runtime.getRuntime().removeShutdownHook(hook);
      }
    }
    return 0;
  }
}
