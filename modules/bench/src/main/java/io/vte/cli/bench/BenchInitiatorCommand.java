package io.vte.cli.bench;

import io.vte.cli.bench.baseline.NioAckedBench;
import io.vte.cli.bench.fault.FaultScheduler;
import io.vte.cli.bench.fault.FaultStep;
import io.vte.cli.common.ExitCodes;
import io.vte.cli.common.StopSignal;
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
 * {@code vte bench initiator --target host:port}: starts an engine (devices {@code soft0..}, by
 * default one per IPv4 address of this host's interfaces), opens the target's segment (p2p: its
 * server name; etcd: the name it published, {@code --segment-name} or its server name) and drives
 * READs or WRITEs into its buffer; prints the table or one JSON object. SIGINT or SIGTERM ends the
 * run early: the batches in flight end, the report of what ran is printed with a line on stderr
 * saying it is partial, and the exit code is 130 or 143.
 */
@Command(
    name = "initiator",
    mixinStandardHelpOptions = true,
    header = "Drive READs or WRITEs into a 'vte bench target'.",
    description = {
      "Drive READs or WRITEs into a 'vte bench target' and report throughput, latency and failures,",
      "and the bytes the same-host and the network rails moved in the measured time ('rail bytes',",
      "JSON rail_bytes). Against a 'bench target --shared-memory' on this host the run fails when a",
      "measured request fell back to the network."
    })
public final class BenchInitiatorCommand implements Callable<Integer> {

  /** Windows of a run measured against the baselines (each after its baseline slice). */
  private static final int BASELINE_WINDOWS = 5;

  @Spec private CommandSpec spec;

  @Mixin private EngineFlags engineFlags;

  @Mixin private LoadFlags load;

  @Option(
      names = "--target",
      required = true,
      paramLabel = "HOST:PORT|NAME",
      description =
          "The target's server name host:port as it printed it (p2p), or its segment name (etcd).")
  private String target;

  @Option(
      names = "--baseline",
      description = {
        "Also measure, in this process between five windows of the run, raw NIO loopback streaming",
        "over as many connections as carried the engine's traffic, acked NIO (polling as the engine",
        "does, and blocking), and a memcpy of the block size (one thread, and the same-host rail's",
        "copier count once it copied). The baselines run on loopback: against a target on another",
        "host they bound the transport, not the link."
      })
  private boolean baseline;

  /** Creates the command (picocli instantiates it). */
  public BenchInitiatorCommand() {}

  @Override
  public Integer call() throws Exception {
    List<FaultStep> faults;
    List<String> specs;
    try {
      engineFlags.validate();
      load.validate();
      if (target.isBlank()
          || ("p2p".equals(engineFlags.metadata()) && !target.matches("[^:\\s]+:\\d{1,5}"))) {
        throw new IllegalArgumentException(
            "--target must be host:port with --metadata p2p (a segment name needs"
                + " --metadata etcd://...), got '"
                + target
                + "'");
      }
      faults = engineFlags.faults();
      specs = engineFlags.hostSpecs();
      FaultScheduler.requireKnownDevices(faults, EngineFlags.names(specs));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    try (BenchInitiator initiator =
            ExitCodes.starting(() -> BenchInitiator.start(engineFlags.engineOptions(specs)));
        InitiatorSession session =
            ExitCodes.starting(
                () ->
                    InitiatorSession.open(
                        initiator.vertx(), initiator.engine(), target, load.region()));
        StopSignal stop = StopSignal.install(session::stop)) {
      List<FaultScheduler> schedulers =
          faults.isEmpty()
              ? List.of()
              : List.of(
                  FaultScheduler.forEngine(initiator.engine(), faults, EngineFlags.names(specs)));
      int windows = baseline && schedulers.isEmpty() ? BASELINE_WINDOWS : 1;
      BaselineWindows baselines =
          new BaselineWindows(
              initiator.engine(),
              NioAckedBench.Polling.of(engineFlags.engineOptions(specs)),
              load.measure().dividedBy(2L * windows),
              load.blockSize(),
              load.region(),
              load.plan().inFlight());
      BenchResult r =
          session.measure(
              load.plan(),
              load.warmupTime(),
              load.measure(),
              windows,
              baseline && schedulers.isEmpty() ? baselines::beforeWindow : () -> {},
              schedulers,
              load.progress() ? spec.commandLine().getErr() : null,
              System.console() != null);
      new BenchReport(
              load.mode("initiator"),
              specs.size(),
              engineFlags.workers(),
              engineFlags.sliceSize(),
              baselines.result())
          .print(spec.commandLine().getOut(), r, load.json());
      if (stop.exitCode() >= 0) {
        spec.commandLine()
            .getErr()
            .printf(
                Locale.ROOT,
                "vte bench: stopped by %s after %.1f s of --duration %.1f s: the report is partial%n",
                stop.exitCode() == ExitCodes.SIGINT ? "SIGINT" : "SIGTERM",
                r.nanos() / 1e9,
                load.measure().toNanos() / 1e9);
        spec.commandLine().getErr().flush();
        return stop.exitCode();
      }
      return r.exitCode();
    }
  }
}
