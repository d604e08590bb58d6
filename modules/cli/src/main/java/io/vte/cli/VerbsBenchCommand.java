package io.vte.cli;

import io.vte.cli.bench.NioStreamBench;
import io.vte.cli.bench.SoftLatencyBench;
import io.vte.cli.bench.SoftWriteBench;
import io.vte.cli.bench.TcpPingPongBench;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code vte verbs-bench}: soft-verbs bandwidth against raw NIO streaming, and small-message latency
 * against a TCP ping-pong, all in one run on loopback.
 */
@Command(name = "verbs-bench", mixinStandardHelpOptions = true,
    description = {"Measure soft verbs on loopback: (a) raw NIO streaming of --size writes, (b) soft RDMA WRITE of",
        "--size messages soft0 -> soft1 with --depth outstanding, ratio b/a; 8 B WRITE latency against a",
        "64 B TCP ping-pong. Each of the four phases runs --seconds."})
public final class VerbsBenchCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  private boolean json;

  @Option(names = "--seconds", defaultValue = "3", description = "Seconds per phase (default ${DEFAULT-VALUE}).")
  private double seconds;

  @Option(names = "--size", defaultValue = "4194304", description = "Message size in bytes (default ${DEFAULT-VALUE}).")
  private int size;

  @Option(names = "--depth", defaultValue = "16", description = "Outstanding WRITEs (default ${DEFAULT-VALUE}).")
  private int depth;

  /** Creates the command (picocli instantiates it). */
  public VerbsBenchCommand() {}

  @Override
  public Integer call() {
    validate();
    Duration phase = Duration.ofNanos((long) (seconds * 1e9));
    double nio = NioStreamBench.run(phase, size);
    double soft = SoftWriteBench.run(phase, size, depth);
    Histogram base = TcpPingPongBench.run(phase);
    Histogram lat = SoftLatencyBench.run(phase);
    PrintWriter out = spec.commandLine().getOut();
    double ratio = soft / nio;
    if (json) {
      out.println(String.format(Locale.ROOT, "{\"nio_gib_s\":%.3f,\"soft_gib_s\":%.3f,\"ratio\":%.3f,"
          + "\"lat_p50_us\":%.2f,\"lat_p99_us\":%.2f,\"baseline_p50_us\":%.2f,\"baseline_p99_us\":%.2f,"
          + "\"lat_ratio_p50\":%.3f,\"size\":%d,\"depth\":%d,\"seconds\":%s}",
          nio, soft, ratio, us(lat, 50), us(lat, 99), us(base, 50), us(base, 99), us(lat, 50) / us(base, 50),
          size, depth, seconds));
    } else {
      out.printf(Locale.ROOT, "bandwidth (%d B messages, %d outstanding):%n", size, depth);
      out.printf(Locale.ROOT, "  (a) NIO stream, 2 threads      %8.3f GiB/s%n", nio);
      out.printf(Locale.ROOT, "  (b) soft verbs RDMA WRITE      %8.3f GiB/s%n", soft);
      out.printf(Locale.ROOT, "  ratio b/a                      %8.3f   (target >= 0.90)%n", ratio);
      out.printf(Locale.ROOT, "latency (one outstanding):%n");
      out.printf(Locale.ROOT, "  soft verbs 8 B WRITE     p50 %8.2f us  p99 %8.2f us%n", us(lat, 50), us(lat, 99));
      out.printf(Locale.ROOT, "  TCP 64 B ping-pong       p50 %8.2f us  p99 %8.2f us%n", us(base, 50), us(base, 99));
      out.printf(Locale.ROOT, "  p50 ratio                    %8.3f   (target <= 1.5)%n", us(lat, 50) / us(base, 50));
    }
    out.flush();
    return 0;
  }

  private void validate() {
    if (!(seconds > 0 && seconds <= 3600)) {
      throw new ParameterException(spec.commandLine(), "--seconds must be > 0 and <= 3600, got " + seconds);
    }
    if (size < 1 || size > 1 << 30) {
      throw new ParameterException(spec.commandLine(), "--size must be 1..1073741824 bytes, got " + size);
    }
    if (depth < 1 || depth > 4096) {
      throw new ParameterException(spec.commandLine(), "--depth must be 1..4096, got " + depth);
    }
  }

  private static double us(Histogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1000.0;
  }
}
