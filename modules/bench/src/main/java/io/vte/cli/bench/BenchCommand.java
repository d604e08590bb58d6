package io.vte.cli.bench;

import io.vertx.core.json.JsonObject;
import io.vte.api.Integrity;
import io.vte.api.VteException;
import io.vte.cli.bench.baseline.NioAckedBench;
import io.vte.cli.bench.fault.FaultScheduler;
import io.vte.cli.bench.fault.FaultStep;
import io.vte.cli.bench.sweep.Sweep;
import io.vte.cli.bench.sweep.SweepRow;
import io.vte.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * {@code vte bench}: without a mode, the embedded default: two engines in this JVM over soft verbs,
 * the initiator's devices named {@code src0..}, the target's {@code dst0..}; {@code --sweep} runs
 * one short measurement per block size and writes a CSV and a PNG plot. The two-process forms are
 * the subcommands {@code target} and {@code initiator}.
 */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    header = "Measure transfers between two engines (one JVM or two).",
    subcommands = {BenchTargetCommand.class, BenchInitiatorCommand.class},
    description = {
      "Two engines in one JVM over soft verbs (default: 4 MiB WRITEs for 10 s, 8 in flight): throughput,",
      "ops/s, latency percentiles, failures by cause; then ops/s and latency of single requests (batch",
      "size 1, one in flight) of the same size. Two processes: 'vte bench target' and",
      "'vte bench initiator --target host:port'."
    })
public final class BenchCommand implements Callable<Integer> {

  /** Engine windows (each after its baseline slice) when measuring against the baseline. */
  private static final int BASELINE_ROUNDS = 5;

  @Spec private CommandSpec spec;

  @Mixin private EngineFlags engineFlags;

  @Mixin private LoadFlags load;

  @Option(
      names = "--baseline",
      description = {
        "Also measure, in this process, what the run is compared with; the measured time is cut into "
            + BASELINE_ROUNDS
            + " windows, each after a baseline slice of half its length:",
        "raw Java NIO loopback streaming of the block size over as many connections as carried the",
        "engine's traffic; NIO with as many messages in flight as the run's requests, each answered",
        "with an 8 B acknowledgement, once polling as the engine polls (--busy-poll-us,",
        "--nic-busy-poll-us: the like-for-like 'acked ratio') and once with blocking sockets; a memcpy",
        "of the block size on one thread and, after the same-host rail copied, on as many threads as",
        "it has copiers; beside the single requests, blocking and busy-polling TCP ping-pongs whose",
        "messages are answered with 8 B, as a one-sided WRITE is."
      })
  private boolean baseline;

  @Option(
      names = "--integrity",
      defaultValue = "none",
      description = {
        "none (default): the engines' check; crc32c: measure the end-to-end CRC32C check's cost,",
        "the same load with the check on and off in "
            + IntegrityCost.ROUNDS
            + " alternating pairs of windows",
        "sharing --duration, and print both throughputs and their ratio."
      })
  private String integrity;

  @Option(
      names = "--shared-memory",
      description = {
        "The target's buffer is engine-allocated shared memory (TransferEngine.allocate): the",
        "engines, on one host, move bytes over the same-host rail; the run fails when a measured",
        "request moved over the network instead ('rail bytes', counted over the measured windows)."
      })
  private boolean sharedMemory;

  @Option(
      names = "--sweep",
      description = "Measure every block size of --sweep-sizes; write sweep.csv and sweep.png.")
  private boolean sweep;

  @Option(
      names = "--sweep-sizes",
      defaultValue = Sweep.DEFAULT_SIZES,
      description = "Block sizes of the sweep (default ${DEFAULT-VALUE}).")
  private String sweepSizes;

  @Option(
      names = "--sweep-batches",
      defaultValue = Sweep.DEFAULT_BATCHES,
      description =
          "Batch sizes of the sweep, each run at every block size (default ${DEFAULT-VALUE}).")
  private String sweepBatches;

  @Option(
      names = "--sweep-duration",
      defaultValue = "2",
      description =
          "Seconds per sweep size (default ${DEFAULT-VALUE}); --duration is refused with --sweep.")
  private double sweepDuration;

  @Option(
      names = "--out",
      defaultValue = "bench-out",
      description = "Directory for the sweep files (default ${DEFAULT-VALUE}).")
  private Path out;

  /**
   * @return true for {@code --integrity crc32c}
   * @throws IllegalArgumentException naming the value when it is neither none nor crc32c
   */
  private boolean integrityCost() {
    try {
      return Integrity.parse(integrity) == Integrity.CRC32C;
    } catch (VteException e) {
      throw new IllegalArgumentException("--integrity: " + e.getMessage(), e);
    }
  }

  /** Creates the command (picocli instantiates it). */
  public BenchCommand() {}

  @Override
  public Integer call() throws Exception {
    List<String> srcSpecs = engineFlags.embeddedSpecs("src");
    List<String> dstSpecs = engineFlags.embeddedSpecs("dst");
    List<String> srcNames = EngineFlags.names(srcSpecs);
    List<String> dstNames = EngineFlags.names(dstSpecs);
    List<Integer> sizes;
    List<Integer> batches;
    List<FaultStep> faults;
    boolean cost;
    try {
      engineFlags.validate();
      load.validate();
      sizes = SweepRow.parseSizes(sweepSizes);
      batches = SweepRow.parseBatches(sweepBatches);
      if (!(sweepDuration > 0 && sweepDuration <= 600)) {
        throw new IllegalArgumentException(
            "--sweep-duration must be > 0 and <= 600, got " + sweepDuration);
      }
      if (sweep && spec.commandLine().getParseResult().hasMatchedOption("--duration")) {
        throw new IllegalArgumentException(
            "--duration is the time of one run; with --sweep give the time per block"
                + " size as --sweep-duration, got --duration "
                + spec.commandLine().getParseResult().matchedOptionValue("--duration", 0.0));
      }
      cost = integrityCost();
      if (cost && (sweep || baseline || engineFlags.faults().size() > 0)) {
        throw new IllegalArgumentException(
            "--integrity crc32c cannot be combined with --sweep, --baseline or --inject");
      }
      if (sweep && engineFlags.faults().size() > 0) {
        throw new IllegalArgumentException("--inject and --sweep cannot be combined");
      }
      if (baseline && (sweep || engineFlags.faults().size() > 0)) {
        throw new IllegalArgumentException(
            "--baseline cannot be combined with " + (sweep ? "--sweep" : "--inject"));
      }
      faults = engineFlags.faults();
      List<String> names = new ArrayList<>(srcNames);
      names.addAll(dstNames);
      FaultScheduler.requireKnownDevices(faults, names);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter progress = !load.progress() ? null : spec.commandLine().getErr();
    long region = sweep ? Sweep.region(sizes, batches, load) : load.region();
    try (BenchTarget target =
            ExitCodes.starting(
                () ->
                    BenchTarget.start(engineFlags.engineOptions(dstSpecs), region, sharedMemory));
        BenchInitiator initiator =
            ExitCodes.starting(() -> BenchInitiator.start(engineFlags.engineOptions(srcSpecs)));
        InitiatorSession session =
            ExitCodes.starting(
                () ->
                    InitiatorSession.open(
                        initiator.vertx(), initiator.engine(), target.serverName(), region))) {
      if (sweep) {
        String title =
            String.format(
                Locale.ROOT,
                "vte bench --sweep: %s, %s devices x %d owners, soft verbs",
                load.opcode(),
                srcNames.size(),
                engineFlags.workers());
        List<SweepRow> rows =
            Sweep.run(
                session,
                sizes,
                batches,
                load,
                Duration.ofNanos((long) (sweepDuration * 1e9)),
                out,
                title,
                progress);
        if (load.json()) {
          stdout.println(Sweep.json(rows, out).encode());
          stdout.flush();
        } else {
          Sweep.printTable(stdout, rows, out);
        }
        return rows.stream().allMatch(r -> r.failed() == 0 && !r.stalled())
            ? ExitCodes.OK
            : ExitCodes.RUN_FAILED;
      }
      if (cost) {
        if (sharedMemory) {
          session.requireSameHost();
        }
        return IntegrityCost.run(session, load, stdout);
      }
      List<FaultScheduler> schedulers =
          faults.isEmpty()
              ? List.of()
              : List.of(
                  FaultScheduler.forEngine(initiator.engine(), faults, srcNames),
                  FaultScheduler.forEngine(target.engine(), faults, dstNames));
      // Baseline slices alternate with the engine's windows, so that a change of load on a shared
      // machine
      // during the run weighs on both sides of the ratio alike.
      int windows = baseline ? BASELINE_ROUNDS : 1;
      Duration slice = load.measure().dividedBy(2L * windows);
      BaselineWindows baselines =
          new BaselineWindows(
              initiator.engine(),
              NioAckedBench.Polling.of(engineFlags.engineOptions(srcSpecs)),
              slice,
              load.blockSize(),
              load.region(),
              load.plan().inFlight());
      if (sharedMemory) {
        session.requireSameHost();
      }
      Runnable beforeWindow = !baseline ? () -> {} : baselines::beforeWindow;
      BenchResult r =
          session.measure(
              load.plan(),
              load.warmupTime(),
              load.measure(),
              windows,
              beforeWindow,
              schedulers,
              progress,
              System.console() != null);
      // Next to the configured run: one request per batch, one in flight (unless that was the run).
      SingleRequestRun single =
          !faults.isEmpty() || load.plan().equals(load.plan().singleRequest())
              ? null
              : SingleRequestRun.measure(session, load, baseline);
      BenchReport report =
          new BenchReport(
              load.mode("embedded"),
              srcNames.size(),
              engineFlags.workers(),
              engineFlags.sliceSize(),
              baselines.result());
      if (load.json()) {
        JsonObject json = report.json(r);
        if (single != null) {
          json.put("batch1", single.json());
        }
        stdout.println(json.encode());
        stdout.flush();
      } else {
        report.print(stdout, r, false);
        if (single != null) {
          single.print(stdout);
        }
        stdout.flush();
      }
      return single != null && single.result().exitCode() != ExitCodes.OK
          ? single.result().exitCode()
          : r.exitCode();
    }
  }
}
