package io.vte.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The suite's shared collector: scenarios {@link #record} their figures, the extension marks each
 * row with its test's verdict, and when the whole run ends one table is printed and written to
 * {@code target/reliability-summary.txt} (system property {@code vte.it.summary}). Each row shows
 * its try (a scenario that missed a wall-clock target is tried once more, see {@link
 * WallClockTargets}) and its targets as measured/target.
 */
public final class ReliabilityReport implements BeforeAllCallback, BeforeEachCallback, TestWatcher {

  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(ReliabilityReport.class);
  private static final List<Row> ROWS = new ArrayList<>();
  private static String currentTest = "?";
  private static int currentTry = 1;

  private static final class Row {
    final String test;
    final int attempt;
    final ScenarioFigures figures;
    String verdict = "running";

    Row(String test, int attempt, ScenarioFigures figures) {
      this.test = test;
      this.attempt = attempt;
      this.figures = figures;
    }
  }

  /** Created by JUnit. */
  public ReliabilityReport() {}

  /**
   * Adds a scenario's figures to the summary, attributed to the running test.
   *
   * @param figures what the scenario measured
   */
  public static synchronized void record(ScenarioFigures figures) {
    ROWS.add(new Row(currentTest, currentTry, figures));
    System.out.println("[reliability] " + format(figures, "measured", currentTry));
  }

  /**
   * Figures recorded from now on belong to try {@code n} of the running test.
   *
   * @param n 1 for the first try, 2 for the retry after a missed wall-clock target
   */
  static synchronized void startTry(int n) {
    currentTry = n;
  }

  /**
   * Marks the rows of the running test's current try MISSED: it missed a wall-clock target and is
   * tried again.
   */
  static synchronized void tryMissed() {
    for (Row r : ROWS) {
      if (r.test.equals(currentTest) && r.attempt == currentTry && r.verdict.equals("running")) {
        r.verdict = "MISSED";
      }
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    context
        .getRoot()
        .getStore(NS)
        .getOrComputeIfAbsent(Printer.class, k -> new Printer(), Printer.class);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    synchronized (ReliabilityReport.class) {
      currentTest = context.getUniqueId();
      currentTry = 1;
    }
  }

  @Override
  public void testSuccessful(ExtensionContext context) {
    verdict(context, "PASS");
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    verdict(context, "FAIL");
  }

  @Override
  public void testAborted(ExtensionContext context, Throwable cause) {
    verdict(context, "ABORTED");
  }

  @Override
  public void testDisabled(ExtensionContext context, Optional<String> reason) {
    synchronized (ReliabilityReport.class) {
      ROWS.add(
          new Row(
              context.getUniqueId(),
              1,
              new ScenarioFigures(
                  context.getDisplayName(),
                  0,
                  0,
                  Double.NaN,
                  Double.NaN,
                  Double.NaN,
                  "disabled: " + reason.orElse(""))));
    }
    verdict(context, "DISABLED");
  }

  private static synchronized void verdict(ExtensionContext context, String verdict) {
    for (Row r : ROWS) {
      if (r.test.equals(context.getUniqueId()) && r.verdict.equals("running")) {
        r.verdict = verdict;
      }
    }
  }

  /**
   * @return the summary table of everything recorded so far
   */
  public static synchronized String table() {
    StringBuilder sb = new StringBuilder();
    sb.append("VTE reliability summary (").append(ROWS.size()).append(" scenarios)\n");
    sb.append(
        "Wall-clock targets are shown measured/target. A scenario that misses one (its correctness checks having\n"
            + "passed) is tried once more and fails only if try 2 misses too; the missed try's row says MISSED.\n");
    sb.append(
        String.format(
            "%-8s %-50s %3s %9s %8s %12s %12s %12s  %s | %s%n",
            "verdict",
            "scenario",
            "try",
            "transfers",
            "failures",
            "max lat ms",
            "pollgap p999",
            "recovery ms",
            "targets (measured/target)",
            "notes"));
    for (Row r : ROWS) {
      sb.append(format(r.figures, r.verdict, r.attempt)).append('\n');
    }
    return sb.toString();
  }

  private static String format(ScenarioFigures f, String verdict, int attempt) {
    String targets =
        f.targets().isEmpty()
            ? "-"
            : f.targets().stream()
                .map(Target::toString)
                .collect(java.util.stream.Collectors.joining(", "));
    return String.format(
        "%-8s %-50s %3d %9d %8d %12s %12s %12s  %s | %s",
        verdict,
        f.scenario(),
        attempt,
        f.transfers(),
        f.failures(),
        num(f.maxLatencyMs()),
        num(f.pollGapP999Ms()),
        num(f.recoveryMs()),
        targets,
        f.note());
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "-" : String.format("%.1f", v);
  }

  /**
   * Prints and writes the table when the root context closes, i.e. once after the last test class.
   */
  private static final class Printer implements AutoCloseable {
    @Override
    public void close() throws IOException {
      String table = table();
      System.out.println();
      System.out.println(table);
      Path file = Path.of(System.getProperty("vte.it.summary", "target/reliability-summary.txt"));
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, table, StandardCharsets.UTF_8);
    }
  }
}
