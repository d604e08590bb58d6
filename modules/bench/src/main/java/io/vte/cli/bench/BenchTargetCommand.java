package io.vte.cli.bench;

import io.vertx.core.json.JsonObject;
import io.vte.cli.bench.fault.FaultScheduler;
import io.vte.cli.bench.fault.FaultStep;
import io.vte.cli.common.ByteSize;
import io.vte.cli.common.ExitCodes;
import io.vte.cli.common.StopSignal;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vte bench target}: starts an engine (devices {@code soft0..}, by default one per IPv4
 * address of this host's interfaces), registers one buffer filled with the target pattern, prints
 * its server name (the handshake service's {@code host:port}, on the first device's address unless
 * {@code --host} says otherwise) and, with {@code --segment-name}, the segment name it publishes,
 * then serves until SIGINT/SIGTERM, closes cleanly and exits 0. With {@code --inject} it plays the
 * schedule on its own devices, timed from when it starts serving, and prints a line on stderr as
 * each step runs.
 */
@Command(
    name = "target",
    mixinStandardHelpOptions = true,
    header = "Serve a buffer for 'vte bench initiator' until stopped.",
    description = {
      "Serve a registered buffer for 'vte bench initiator' until SIGINT/SIGTERM; prints the server name."
    })
public final class BenchTargetCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Mixin private EngineFlags engineFlags;

  @Option(
      names = "--host",
      paramLabel = "ADDRESS",
      description =
          "Address of the handshake service, one peers can reach (default: the first device's address).")
  private String host;

  @Option(
      names = "--segment-name",
      paramLabel = "NAME",
      description =
          "Name the target's segment is published under (with --metadata etcd://...: initiators use"
              + " --target NAME); default: the server name host:port.")
  private String segmentName;

  @Option(
      names = "--port",
      defaultValue = "0",
      description = "Port of the handshake service, 0 for any (default ${DEFAULT-VALUE}).")
  private int port;

  @Option(
      names = "--buffer-size",
      defaultValue = "256M",
      converter = ByteSize.LongConverter.class,
      paramLabel = "BYTES",
      description = "Bytes of the registered buffer, e.g. 64M (default ${DEFAULT-VALUE}).")
  private long bufferSize;

  @Option(
      names = "--shared-memory",
      description = {
        "Allocate the buffer in shared memory (TransferEngine.allocate): initiators on this host",
        "running as this user copy over the same-host rail."
      })
  private boolean sharedMemory;

  @Option(names = "--json", description = "Announce the server name as one JSON object.")
  private boolean json;

  /** Creates the command (picocli instantiates it). */
  public BenchTargetCommand() {}

  @Override
  public Integer call() throws Exception {
    List<FaultStep> faults;
    List<String> specs;
    try {
      engineFlags.validate();
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("--port must be 0..65535, got " + port);
      }
      if (bufferSize < 4096 || bufferSize > LoadFlags.MAX_REGION) {
        throw new IllegalArgumentException(
            "--buffer-size must be 4096..536870912 bytes, got " + bufferSize);
      }
      if (host != null && !routable(host)) {
        throw new IllegalArgumentException(
            "--host must be one address of this host that peers can reach, got '" + host + "'");
      }
      faults = engineFlags.faults();
      specs = engineFlags.hostSpecs();
      FaultScheduler.requireKnownDevices(faults, EngineFlags.names(specs));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintWriter err = spec.commandLine().getErr();
    if (engineFlags.hostDefault() && engineFlags.hostChoice().loopbackOnly()) {
      err.println("vte bench target: " + engineFlags.hostChoice().reason());
      err.flush();
    }
    try (StopSignal stop = StopSignal.install();
        BenchTarget target =
            ExitCodes.starting(
                () ->
                    BenchTarget.start(
                        engineFlags
                            .engineOptions(specs)
                            .setRpcHost(host)
                            .setRpcPort(port)
                            .setSegmentName(segmentName),
                        bufferSize,
                        sharedMemory))) {
      PrintWriter out = spec.commandLine().getOut();
      String segment = segmentName == null ? target.serverName() : segmentName;
      if (json) {
        out.println(
            new JsonObject()
                .put("server_name", target.serverName())
                .put("segment_name", segment)
                .put("buffer_bytes", target.length())
                .put("devices", EngineFlags.names(specs))
                .put("device_specs", specs)
                .encode());
      } else {
        out.printf(
            Locale.ROOT,
            "vte bench target: serving %s as segment %s (%d B registered on %s); stop with Ctrl-C"
                + " or SIGTERM%n",
            target.serverName(),
            segment,
            target.length(),
            String.join(",", specs));
      }
      out.flush();
      try (FaultScheduler scheduler =
          faults.isEmpty()
              ? null
              : FaultScheduler.forEngine(target.engine(), faults, EngineFlags.names(specs))
                  .onStep(
                      line -> {
                        err.println("vte bench target: fault " + line);
                        err.flush();
                      })) {
        if (scheduler != null) {
          scheduler.start();
        }
        stop.await();
      }
    }
    return ExitCodes.OK;
  }

  /**
   * A host name or literal that is not the wildcard address (whose server name no peer could use).
   */
  private static boolean routable(String host) {
    if (host.isBlank()) {
      return false;
    }
    try {
      return !java.net.InetAddress.getByName(host).isAnyLocalAddress();
    } catch (java.net.UnknownHostException e) {
      return false;
    }
  }
}
