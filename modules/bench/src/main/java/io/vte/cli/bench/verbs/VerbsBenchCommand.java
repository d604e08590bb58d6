package io.vte.cli.bench.verbs;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.cli.bench.baseline.NioStreamBench;
import io.vte.cli.bench.baseline.TcpPingPongBench;
import io.vte.cli.common.ByteSize;
import io.vte.verbs.soft.SoftVerbsConfig;
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
 * {@code vte verbs-bench}: soft-verbs bandwidth against raw NIO streaming, and small-message
 * latency against a TCP ping-pong of the same size that polls as the soft side does, all in one run
 * on loopback.
 */
@Command(
    name = "verbs-bench",
    mixinStandardHelpOptions = true,
    header = "Measure soft verbs against NIO streaming and TCP ping-pong.",
    description = {
      "Measure soft verbs on loopback: (a) raw NIO streaming of --size writes, (b) soft RDMA WRITE of",
      "--size messages soft0 -> soft1 with --depth outstanding, ratio b/a; 8 B WRITE latency (busy-polled",
      "CQ) against an 8 B TCP ping-pong that busy-polls on both sides (the ratio's baseline) and a blocking",
      "one (printed for reference). Each measurement runs --seconds, in --rounds slices alternating with its",
      "baselines, after one unmeasured warm-up slice of each (so the JIT has compiled the hot path)."
    })
public final class VerbsBenchCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  @Option(names = "--json", description = "Print one JSON object instead of text.")
  private boolean json;

  @Option(
      names = "--seconds",
      defaultValue = "10",
      description = "Seconds per phase (default ${DEFAULT-VALUE}).")
  private double seconds;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description =
          "Slices each phase is split into, alternating with its baseline (default ${DEFAULT-VALUE}).")
  private int rounds;

  @Option(
      names = "--size",
      defaultValue = "4M",
      converter = ByteSize.IntConverter.class,
      paramLabel = "BYTES",
      description = "Message size in bytes, e.g. 64K, 4M (default ${DEFAULT-VALUE}).")
  private int size;

  @Option(
      names = "--depth",
      defaultValue = "16",
      description = "Outstanding WRITEs (default ${DEFAULT-VALUE}).")
  private int depth;

  @Option(
      names = "--nic-spin-us",
      description =
          "Soft NIC busy-poll window in the latency phase, microseconds (default ${DEFAULT-VALUE}).")
  private int nicSpinMicros = new SoftVerbsConfig().nicSpinMicros();

  /** Creates the command (picocli instantiates it). */
  public VerbsBenchCommand() {}

  @Override
  public Integer call() {
    validate();
    // Each measurement is split into slices, alternating with its baseline, so that load from other
    // processes on
    // a shared machine hits both sides of a ratio alike. Round 0 is the warm-up: measured, then
    // dropped.
    Duration slice = Duration.ofNanos((long) (seconds * 1e9 / rounds));
    double nio = 0;
    double soft = 0;
    double[] roundRatios = new double[rounds];
    for (int r = 0; r <= rounds; r++) {
      double n = NioStreamBench.run(slice, size);
      double s = SoftWriteBench.run(slice, size, depth);
      if (r > 0) {
        nio += n / rounds;
        soft += s / rounds;
        roundRatios[r - 1] = s / n;
      }
    }
    // Like for like: the soft side busy-polls its CQ, so the ratio's baseline busy-polls too, with
    // messages of the same size; the blocking ping-pong is printed beside it.
    Histogram base = new Histogram(3);
    Histogram blocking = new Histogram(3);
    Histogram lat = new Histogram(3);
    for (int r = 0; r <= rounds; r++) {
      Histogram b = TcpPingPongBench.run(slice, SoftLatencyBench.MESSAGE, true).roundTrips();
      Histogram k = TcpPingPongBench.run(slice, SoftLatencyBench.MESSAGE, false).roundTrips();
      Histogram l = SoftLatencyBench.run(slice, nicSpinMicros);
      if (r > 0) {
        base.add(b);
        blocking.add(k);
        lat.add(l);
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    double ratio = soft / nio;
    if (json) {
      JsonArray perRound = new JsonArray();
      for (double r : roundRatios) {
        perRound.add(rounded(r, 3));
      }
      out.println(
          new JsonObject()
              .put("nio_gib_s", rounded(nio, 3))
              .put("soft_gib_s", rounded(soft, 3))
              .put("ratio", rounded(ratio, 3))
              .put("lat_p50_us", rounded(us(lat, 50), 2))
              .put("lat_p99_us", rounded(us(lat, 99), 2))
              .put("baseline_p50_us", rounded(us(base, 50), 2))
              .put("baseline_p99_us", rounded(us(base, 99), 2))
              .put("baseline", "busy-polling")
              .put("baseline_size", SoftLatencyBench.MESSAGE)
              .put("blocking_p50_us", rounded(us(blocking, 50), 2))
              .put("blocking_p99_us", rounded(us(blocking, 99), 2))
              .put("lat_ratio_p50", rounded(us(lat, 50) / us(base, 50), 3))
              .put("lat_ratio_p50_blocking", rounded(us(lat, 50) / us(blocking, 50), 3))
              .put("size", size)
              .put("depth", depth)
              .put("seconds", seconds)
              .put("rounds", rounds)
              .put("round_ratios", perRound)
              .put("nic_spin_us", nicSpinMicros)
              .encode());
    } else {
      out.printf(Locale.ROOT, "bandwidth (%d B messages, %d outstanding):%n", size, depth);
      out.printf(Locale.ROOT, "  (a) NIO stream, 2 threads      %8.3f GiB/s%n", nio);
      out.printf(Locale.ROOT, "  (b) soft verbs RDMA WRITE      %8.3f GiB/s%n", soft);
      out.printf(
          Locale.ROOT,
          "  ratio b/a                      %8.3f   (target >= 0.90; per round %s)%n",
          ratio,
          list(roundRatios, " "));
      out.printf(
          Locale.ROOT,
          "latency (one outstanding, soft NIC busy-polls %d us after a peer's request):%n",
          nicSpinMicros);
      out.printf(
          Locale.ROOT,
          "  soft verbs 8 B WRITE     p50 %8.2f us  p99 %8.2f us%n",
          us(lat, 50),
          us(lat, 99));
      out.printf(
          Locale.ROOT,
          "  TCP 8 B ping-pong, busy  p50 %8.2f us  p99 %8.2f us   (both sides busy-poll)%n",
          us(base, 50),
          us(base, 99));
      out.printf(
          Locale.ROOT,
          "  TCP 8 B ping-pong, block p50 %8.2f us  p99 %8.2f us   (for reference)%n",
          us(blocking, 50),
          us(blocking, 99));
      out.printf(
          Locale.ROOT,
          "  p50 ratio to busy        %8.3f   (target <= 1.5; to blocking %.3f)%n",
          us(lat, 50) / us(base, 50),
          us(lat, 50) / us(blocking, 50));
    }
    out.flush();
    return 0;
  }

  private void validate() {
    if (!(seconds > 0 && seconds <= 3600)) {
      throw new ParameterException(
          spec.commandLine(), "--seconds must be > 0 and <= 3600, got " + seconds);
    }
    if (size < 1 || size > 1 << 30) {
      throw new ParameterException(
          spec.commandLine(), "--size must be 1..1073741824 bytes, got " + size);
    }
    if (nicSpinMicros < 0 || nicSpinMicros > 1_000_000) {
      throw new ParameterException(
          spec.commandLine(), "--nic-spin-us must be 0..1000000, got " + nicSpinMicros);
    }
    if (rounds < 1 || rounds > 100) {
      throw new ParameterException(spec.commandLine(), "--rounds must be 1..100, got " + rounds);
    }
    if (depth < 1 || depth > 4096) {
      throw new ParameterException(spec.commandLine(), "--depth must be 1..4096, got " + depth);
    }
  }

  private static String list(double[] values, String separator) {
    StringBuilder b = new StringBuilder();
    for (double v : values) {
      b.append(b.length() == 0 ? "" : separator).append(String.format(Locale.ROOT, "%.3f", v));
    }
    return b.toString();
  }

  /**
   * @return {@code v} rounded to {@code digits} decimals, as the text output prints it
   */
  private static double rounded(double v, int digits) {
    double scale = Math.pow(10, digits);
    return Math.round(v * scale) / scale;
  }

  private static double us(Histogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1000.0;
  }
}
