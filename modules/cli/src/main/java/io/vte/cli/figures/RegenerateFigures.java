package io.vte.cli.figures;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reruns the benchmarks behind {@code docs/performance.md} on the machine at hand and rewrites the
 * page's tables, each between its markers ({@code <!-- figures:NAME:begin -->} and {@code <!--
 * figures:NAME:end -->}) with the commands that made it and the baselines measured in the same runs
 * beside the engine's figures; the run's date, cores and memory go into the one stamp at the top
 * ({@code figures:stamp}). Everything outside the markers is left as it is. {@code
 * docs/regenerate-figures.sh} runs it.
 */
public final class RegenerateFigures {

  /** How long each measurement runs: the page's settings, or a quick pass that only checks. */
  record Settings(
      String name, double benchSeconds, double warmupSeconds, int verbsSeconds, String hosts) {

    static final Settings FULL = new Settings("full", 10, 2, 10, "2,4,8");
    static final Settings QUICK =
        new Settings("quick (--quick: too short to compare)", 1, 0.5, 1, "2");
  }

  private static final List<String> BLOCKS = List.of("4K", "64K", "4M");

  private final Path page;
  private final Path work;
  private final Settings settings;
  private final VteRunner vte;
  private double loadAtStart;

  /**
   * @param page the Markdown page to rewrite
   * @param work a directory for the runs' own files (the scale run's report and plot)
   * @param settings how long each measurement runs
   * @param vte runs one {@code vte} command
   */
  RegenerateFigures(Path page, Path work, Settings settings, VteRunner vte) {
    this.page = page;
    this.work = work;
    this.settings = settings;
    this.vte = vte;
  }

  /**
   * Usage: {@code RegenerateFigures PAGE [--quick] [--work DIR]}.
   *
   * @param args the page, then the options
   * @throws Exception when a run fails: the page is then left as it was
   */
  public static void main(String[] args) throws Exception {
    if (args.length == 0 || args[0].startsWith("-")) {
      System.err.println("usage: RegenerateFigures PAGE [--quick] [--work DIR]");
      System.exit(2);
    }
    List<String> options = List.of(args).subList(1, args.length);
    int workAt = options.indexOf("--work");
    Path work = Path.of(workAt >= 0 ? options.get(workAt + 1) : "target/figures");
    Settings settings = options.contains("--quick") ? Settings.QUICK : Settings.FULL;
    new RegenerateFigures(Path.of(args[0]), work, settings, VteRunner.childJvm()).run();
  }

  /**
   * Runs every measurement, then rewrites the page once all of them succeeded.
   *
   * @throws IOException when the page or a run's file cannot be read or written
   */
  void run() throws IOException {
    loadAtStart = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    String text = Files.readString(page);
    text = MarkedSections.replace(text, "engine", engine());
    text = MarkedSections.replace(text, "shared-memory", sharedMemory());
    text = MarkedSections.replace(text, "verbs", verbs());
    text = MarkedSections.replace(text, "scale", scale());
    text = MarkedSections.replace(text, "stamp", stamp());
    Files.writeString(page, text);
  }

  private String stamp() {
    long memory =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getTotalMemorySize();
    return String.format(
        Locale.ROOT,
        "Figures of %s: %d cores, %d GiB of memory, load average %.1f when the run began, %s"
            + " settings, by `docs/regenerate-figures.sh`.",
        LocalDate.now(ZoneOffset.UTC),
        Runtime.getRuntime().availableProcessors(),
        Math.round(memory / (double) (1L << 30)),
        loadAtStart,
        settings.name());
  }

  private List<String> benchArgs(String block, String... extra) {
    // a loaded machine may take more than the default 5 s for a first handshake; it moves no bytes
    List<String> args =
        new ArrayList<>(List.of("bench", "--baseline", "--handshake-timeout", "30"));
    args.addAll(List.of(extra));
    args.addAll(
        List.of(
            "--block-size",
            block,
            "--duration",
            number(settings.benchSeconds()),
            "--warmup",
            number(settings.warmupSeconds()),
            "--json",
            "--no-progress"));
    return args;
  }

  private String engine() {
    StringBuilder out = new StringBuilder();
    Table table =
        new Table(
            "block (batch 1, 8 in flight)",
            "engine GiB/s",
            "NIO streaming GiB/s",
            "ratio",
            "ratio to acked NIO polling as the engine (like for like)",
            "ratio to acked NIO blocking",
            "requests/s",
            "single request p50 us",
            "x busy-polling TCP ping-pong",
            "x blocking TCP ping-pong",
            "allocated per request B");
    for (String block : BLOCKS) {
      List<String> args = benchArgs(block);
      JsonObject r = vte.json(args);
      JsonObject single = r.getJsonObject("batch1");
      table.row(
          block,
          r.getValue("throughput_gib_s"),
          r.getValue("baseline_gib_s"),
          r.getValue("ratio"),
          r.getValue("acked_ratio"),
          r.getValue("acked_blocking_ratio"),
          r.getValue("ops_per_s"),
          single.getValue("p50_us"),
          single.getValue("p50_vs_tcp_busy_poll"),
          single.getValue("p50_vs_tcp_blocking"),
          r.getValue("alloc_bytes_per_request"));
      out.append(command(args)).append('\n');
    }
    return out.append('\n').append(table).toString();
  }

  private String sharedMemory() {
    List<String> args = benchArgs("4M", "--shared-memory");
    JsonObject r = vte.json(args);
    Table table =
        new Table(
            "block",
            "engine GiB/s",
            "one-thread memcpy GiB/s",
            "ratio to memcpy",
            "memcpy on the rail's copier threads GiB/s",
            "copier threads",
            "ratio to it",
            "NIO streaming GiB/s",
            "ratio to NIO",
            "GiB over the same-host rail in the measured windows",
            "GiB over the network in them");
    table.row(
        "4M",
        r.getValue("throughput_gib_s"),
        r.getValue("memcpy_gib_s"),
        r.getValue("memcpy_ratio"),
        r.getValue("memcpy_threads_gib_s"),
        r.getValue("memcpy_threads"),
        r.getValue("memcpy_threads_ratio"),
        r.getValue("baseline_gib_s"),
        r.getValue("ratio"),
        r.getJsonObject("rail_bytes").getLong("same_host") / (double) (1L << 30),
        r.getJsonObject("rail_bytes").getLong("network") / (double) (1L << 30));
    return command(args) + "\n\n" + table;
  }

  private String verbs() {
    List<String> args =
        List.of(
            "verbs-bench",
            "--seconds",
            Integer.toString(settings.verbsSeconds()),
            "--rounds",
            settings.verbsSeconds() > 1 ? "5" : "1",
            "--json");
    JsonObject r = vte.json(args);
    Table table =
        new Table(
            "soft verbs GiB/s",
            "NIO streaming GiB/s",
            "ratio",
            "8 B WRITE p50 us",
            "busy-polling TCP ping-pong p50 us",
            "ratio",
            "blocking TCP ping-pong p50 us",
            "ratio");
    table.row(
        r.getValue("soft_gib_s"),
        r.getValue("nio_gib_s"),
        r.getValue("ratio"),
        r.getValue("lat_p50_us"),
        r.getValue("baseline_p50_us"),
        r.getValue("lat_ratio_p50"),
        r.getValue("blocking_p50_us"),
        r.getValue("lat_ratio_p50_blocking"));
    return command(args) + "\n\n" + table;
  }

  private String scale() throws IOException {
    Path out = work.resolve("scale");
    List<String> args =
        List.of(
            "scale",
            "--hosts",
            settings.hosts(),
            "--storm",
            // deadlines stretched for a loaded machine; counts and memory do not depend on them
            "--time-scale",
            "4",
            "--out",
            out.toString());
    vte.text(args);
    String report = Files.readString(out.resolve("scale.md")).strip();
    Files.copy(
        out.resolve("scale.png"),
        page.resolveSibling("scale.png"),
        StandardCopyOption.REPLACE_EXISTING);
    // the report's headings become bold lines, so that the page keeps its own outline
    String body = report.replaceAll("(?m)^#+ (.*)$", "**$1**");
    return command(args) + "\n\n" + body + "\n\n![growth curves](scale.png)";
  }

  private static String command(List<String> args) {
    return "`./vte " + String.join(" ", args) + "`";
  }

  private static String number(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }

  /** A Markdown table built row by row. */
  static final class Table {
    private final StringBuilder text = new StringBuilder();

    Table(String... header) {
      text.append("| ").append(String.join(" | ", header)).append(" |\n|");
      text.append(" --- |".repeat(header.length)).append('\n');
    }

    void row(Object... cells) {
      text.append('|');
      for (Object cell : cells) {
        if (cell == null) {
          throw new IllegalStateException("a measurement is missing from the run's JSON: " + text);
        }
        text.append(' ').append(cell instanceof Number n ? shown(n) : cell).append(" |");
      }
      text.append('\n');
    }

    /** Three significant digits at most below 100, whole numbers above. */
    private static String shown(Number n) {
      double v = n.doubleValue();
      if (Math.abs(v) >= 100) {
        return String.format(Locale.ROOT, "%,d", Math.round(v));
      }
      return new java.math.BigDecimal(v)
          .round(new java.math.MathContext(3))
          .stripTrailingZeros()
          .toPlainString();
    }

    @Override
    public String toString() {
      return text.toString().strip();
    }
  }
}
