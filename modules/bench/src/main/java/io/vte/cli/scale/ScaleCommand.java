package io.vte.cli.scale;

import io.vte.api.EngineOptionFields;
import io.vte.api.VteException;
import io.vte.cli.common.ExitCodes;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vte scale}: the cost of a growing cluster. For each host count, that many engines ("hosts"
 * with their own loopback addresses and soft devices, in this JVM) open each other's segments and
 * write to each other all at once, then all-to-all small batches for a window, then go idle; the
 * per-host endpoints, QPs, sockets, direct and heap memory, threads, first-transfer latency,
 * handshake rate, etcd keys and watch events and throughput go into a table ({@code scale.md}), a
 * PNG of the growth curves ({@code scale.png}) and a per-peer fit projected to 1,000 and 10,000
 * nodes. With {@code --netns} every host is a JVM of its own in a network namespace instead ({@link
 * NetnsScaleRun}).
 */
@Command(
    name = "scale",
    mixinStandardHelpOptions = true,
    header = "Measure what each host costs as the cluster grows.",
    description = {
      "Runs H engines in this JVM (each a host with --nics soft devices on 127.0.<h>.<n>) for each H",
      "of --hosts: first transfers to every peer at once, all-to-all small batches for --window,",
      "then idle. A first 2-host run warms the JVM up and is not reported. Writes scale.md (table,",
      "fit, projection) and scale.png under --out. With --netns, every host is a JVM of its own in a",
      "network namespace (test/scale-netns.sh sets them up)."
    })
public final class ScaleCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Option(
      names = "--hosts",
      defaultValue = "2,4,8,16",
      split = ",",
      description = "Host counts, one run each (default ${DEFAULT-VALUE}).")
  private List<Integer> hosts;

  @Option(
      names = "--nics",
      defaultValue = "2",
      description = "Soft devices per host (default ${DEFAULT-VALUE}).")
  private int nics;

  @Option(
      names = "--workers",
      defaultValue = "1",
      description = "Owners per device (default ${DEFAULT-VALUE}).")
  private int workers;

  @Option(
      names = "--size",
      defaultValue = "4096",
      description = "Bytes per request (default ${DEFAULT-VALUE}).")
  private int size;

  @Option(
      names = "--batch",
      defaultValue = "4",
      description = "Requests per batch in the all-to-all window (default ${DEFAULT-VALUE}).")
  private int batch;

  @Option(
      names = "--window",
      defaultValue = "3",
      description = "Seconds of all-to-all traffic (default ${DEFAULT-VALUE}).")
  private double window;

  @Option(
      names = "--idle-ms",
      defaultValue = "2000",
      description = "The engines' idleConnectionMs (default ${DEFAULT-VALUE}).")
  private long idleMs;

  @Option(
      names = "--metadata",
      defaultValue = "p2p",
      description = "p2p or etcd://host:port (default ${DEFAULT-VALUE}).")
  private String metadata;

  @Option(
      names = "--storm",
      description =
          "End each run with a reconnect storm: every host restarts its engine at once on the same"
              + " addresses and ports (with --netns: every host's JVM is killed and started again,"
              + " staggered by --stagger-ms); time to full mesh, handshakes, retries, failures after.")
  private boolean storm;

  @Option(
      names = "--segments",
      defaultValue = "0",
      description =
          "Instead of the host runs: publish this many segments into etcd (--metadata etcd://...),"
              + " watched by --watchers watchers, then time --lookups cold lookups by name.")
  private int segments;

  @Option(
      names = "--watchers",
      defaultValue = "32",
      description = "Watchers of the prefix with --segments (default ${DEFAULT-VALUE}).")
  private int watchers;

  @Option(
      names = "--lookups",
      defaultValue = "1000",
      description = "Random lookups with --segments (default ${DEFAULT-VALUE}).")
  private int lookups;

  @Option(
      names = "--netns",
      description =
          "Every host a process in its own network namespace: host h is a JVM (heap "
              + NetnsScaleRun.NODE_HEAP
              + ", at this process's priority) in <PREFIX>-h<h> as test/hosts.sh up makes it (rail NIC i 198.18.<i>.<h+1>,"
              + " management NIC 198.19.0.<h+1>). Needs --metadata etcd://...; run it in"
              + " <PREFIX>-svc. Each host's figures are its own process's.")
  private String netns;

  @Option(
      names = "--stagger-ms",
      defaultValue = "100",
      description =
          "With --netns --storm: host h's JVM starts again h x this many ms after all were killed"
              + " (default ${DEFAULT-VALUE}).")
  private long staggerMs;

  @Option(
      names = "--time-scale",
      defaultValue = "1",
      description =
          "Multiply the protocol's timeouts (handshake deadline, QP timeout, each request's 60 s"
              + " deadline) and the run's step waits by this, 1..100 (default ${DEFAULT-VALUE}): for a machine with fewer"
              + " cores than the run has host JVMs, where a starved peer answers late; the report"
              + " says it.")
  private double timeScale;

  @Option(
      names = "--handshakes-in-flight",
      description =
          "The engines' maxHandshakesInFlight: connect requests each owner has in flight at most"
              + " (default: the engine's, ${DEFAULT-VALUE}); the others wait unsent. On a machine with fewer cores than the run has host"
              + " JVMs, fewer requests at once are answered within their deadline.")
  private int handshakesInFlight = ScaleSettings.DEFAULT_HANDSHAKES_IN_FLIGHT;

  @Option(
      names = "--out",
      defaultValue = "scale-out",
      description = "Directory for scale.md and scale.png (default ${DEFAULT-VALUE}).")
  private Path out;

  /** Creates the command (picocli instantiates it). */
  public ScaleCommand() {}

  @Override
  public Integer call() throws Exception {
    PrintWriter w = spec.commandLine().getOut();
    if (hosts.isEmpty()
        || hosts.stream().anyMatch(h -> h < 2 || h > 250)
        || nics < 1
        || nics > 16
        || workers < 1
        || size < 1
        || batch < 1
        || !(window > 0 && window <= 600)
        || idleMs < 0
        || !(timeScale >= 1 && timeScale <= 100)) {
      throw new ParameterException(
          spec.commandLine(),
          String.format(
              Locale.ROOT,
              "bad settings: --hosts 2..250 each (got %s), --nics 1..16 (%d), --workers >= 1 (%d),"
                  + " --size >= 1 (%d), --batch >= 1 (%d), --window 0..600 s (%s), --idle-ms >= 0"
                  + " (%d), --time-scale 1..100 (%s)",
              hosts,
              nics,
              workers,
              size,
              batch,
              window,
              idleMs,
              timeScale));
    }
    try {
      // the engine option's own range, named by this flag
      EngineOptionFields.MAX_HANDSHAKES_IN_FLIGHT.require(
          handshakesInFlight, "--handshakes-in-flight, engine option");
    } catch (VteException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    if (netns != null && !metadata.startsWith("etcd://")) {
      throw new ParameterException(
          spec.commandLine(),
          "--netns " + netns + " needs --metadata etcd://host:port, got " + metadata);
    }
    if (staggerMs < 0) {
      throw new ParameterException(
          spec.commandLine(), "--stagger-ms must be >= 0, got " + staggerMs);
    }
    if (segments > 0) {
      if ("p2p".equals(metadata) || watchers < 1 || lookups < 1) {
        throw new ParameterException(
            spec.commandLine(),
            "--segments needs --metadata etcd://host:port, --watchers >= 1 and --lookups >= 1");
      }
      String table = MetadataScale.run(metadata, segments, watchers, lookups);
      Files.createDirectories(out);
      Files.writeString(out.resolve("metadata.md"), table);
      w.print(table);
      return ExitCodes.OK;
    }
    ScaleSettings settings =
        new ScaleSettings(
            nics,
            workers,
            size,
            batch,
            Duration.ofMillis(Math.round(window * 1000)),
            Duration.ofMillis(idleMs),
            metadata,
            timeScale,
            handshakesInFlight);
    if (netns == null) {
      // the JVM's one-time costs (classes, the first gRPC server and client, Netty's pools) go here
      new ScaleRun(settings, 2, false).run();
    }
    List<ScaleRow> rows = new ArrayList<>();
    List<StormRow> storms = new ArrayList<>();
    List<String> causes = new ArrayList<>();
    w.println(ScaleRow.HEADER);
    w.flush();
    for (int h : hosts.stream().sorted().toList()) {
      ScaleRow row;
      java.util.Map<String, String> failures;
      if (netns == null) {
        ScaleRun run = new ScaleRun(settings, h, storm);
        row = run.run();
        if (run.storm() != null) {
          storms.add(run.storm());
        }
        failures = run.failureCauses();
      } else {
        NetnsScaleRun run =
            new NetnsScaleRun(
                settings,
                h,
                netns,
                out.resolve("logs-" + h),
                storm ? Duration.ofMillis(staggerMs) : null);
        row = run.run();
        if (run.storm() != null) {
          storms.add(run.storm());
        }
        failures = run.failureCauses();
      }
      rows.add(row);
      w.println(row.markdown());
      if (!failures.isEmpty()) {
        causes.add(h + " hosts: " + failures);
        spec.commandLine().getErr().println(h + " hosts, failures by cause: " + failures);
      }
      w.flush();
    }
    String report =
        (netns == null
                ? "hosts: engines in one JVM on loopback addresses\n"
                : "hosts: one JVM each ("
                    + NetnsScaleRun.NODE_HEAP
                    + ") in network namespaces "
                    + netns
                    + "-h<h>, veth rail NICs\n")
            + ScaleReport.markdown(
                rows,
                storms,
                settings,
                netns == null
                    ? "every host restarts its engine at once"
                    : "staggered crash restarts: every host's JVM killed at once, host h started again"
                        + " h x "
                        + staggerMs
                        + " ms later on the same addresses and ports, writing to every peer as soon"
                        + " as it is up; each handshake is tried at most 8 times, with backoff");
    if (!causes.isEmpty()) {
      report += "\nfailures by cause (first message of each): " + String.join("; ", causes) + "\n";
    }
    Files.createDirectories(out);
    Files.writeString(out.resolve("scale.md"), report);
    ScalePlot.write(rows, out.resolve("scale.png"));
    w.println();
    w.print(report);
    w.printf("wrote %s and %s%n", out.resolve("scale.md"), out.resolve("scale.png"));
    boolean clean =
        rows.stream().allMatch(r -> r.failed() == 0)
            && storms.stream().allMatch(r -> r.failedAfter() == 0);
    return clean ? ExitCodes.OK : ExitCodes.RUN_FAILED;
  }
}
