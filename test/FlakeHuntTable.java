import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The table of {@code test/flake-hunt}: reads every run's Surefire XML reports under the hunt's directory
 * ({@code run-K/reports/.../TEST-*.xml}, and {@code runs.txt} for which runs had the CPU hog) and prints each
 * test that failed or erred at least once, with its failures over the runs it ran in and the first message, and
 * each test that was skipped at least once, with its skips and the first reason: a hunt in which tests skipped
 * did not test them, so it never reads as a clean pass. Run as a single-file program: {@code java
 * test/FlakeHuntTable.java DIR}. Exit status 1 when a test failed or was skipped.
 */
public final class FlakeHuntTable {

  private FlakeHuntTable() {}

  /** What one test did over the runs. */
  private static final class Tally {
    int runs;
    int failures;
    int skips;
    String firstSkip;
    String firstSkipRun;
    int hogRuns;
    int hogFailures;
    String firstMessage;
    String firstRun;
  }

  /** One line of runs.txt. */
  private record Run(String name, boolean hog, String maven, String seconds) {}

  /**
   * @param args the hunt's directory
   * @throws Exception when a report cannot be read
   */
  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: java FlakeHuntTable.java HUNT_DIR");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    List<Run> runs = new ArrayList<>();
    for (String line : Files.readAllLines(dir.resolve("runs.txt"))) {
      Map<String, String> f = new LinkedHashMap<>();
      String[] words = line.trim().split("\\s+");
      for (int i = 1; i < words.length; i++) {
        String[] kv = words[i].split("=", 2);
        f.put(kv[0], kv.length > 1 ? kv[1] : "");
      }
      runs.add(new Run(words[0], "1".equals(f.get("hog")), f.get("maven"), f.get("seconds")));
    }
    Map<String, Tally> tests = new TreeMap<>();
    System.out.println("| run | CPU hog | Maven exit | seconds | tests | failed | skipped |");
    System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
    for (Run run : runs) {
      int ran = 0;
      int failed = 0;
      int skipped = 0;
      for (Path report : reports(dir.resolve(run.name()).resolve("reports"))) {
        NodeList cases = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(report.toFile())
            .getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
          Element c = (Element) cases.item(i);
          String name = c.getAttribute("classname") + "#" + c.getAttribute("name");
          Tally t = tests.computeIfAbsent(name, n -> new Tally());
          Element skip = child(c, "skipped");
          if (skip != null) {
            skipped++;
            t.skips++;
            if (t.firstSkip == null) {
              t.firstSkip = oneLine(skip.getAttribute("message").isEmpty() ? "no reason given" : skip.getAttribute("message"));
              t.firstSkipRun = run.name();
            }
            continue;
          }
          t.runs++;
          ran++;
          if (run.hog()) {
            t.hogRuns++;
          }
          Element bad = child(c, "failure") != null ? child(c, "failure") : child(c, "error");
          if (bad != null) {
            failed++;
            t.failures++;
            if (run.hog()) {
              t.hogFailures++;
            }
            if (t.firstMessage == null) {
              String m = bad.getAttribute("message").isEmpty() ? bad.getAttribute("type") : bad.getAttribute("message");
              t.firstMessage = oneLine(m);
              t.firstRun = run.name();
            }
          }
        }
      }
      System.out.printf("| %s | %s | %s | %s | %d | %d | %d |%n", run.name(), run.hog() ? "yes" : "no", run.maven(),
          run.seconds(), ran, failed, skipped);
    }
    long flaky = tests.values().stream().filter(t -> t.failures > 0).count();
    long skippers = tests.values().stream().filter(t -> t.skips > 0).count();
    long hogRuns = runs.stream().filter(Run::hog).count();
    System.out.printf("%nflake hunt: %d runs (%d beside the CPU hog), %d tests, %d failed at least once, %d skipped at least"
        + " once%s%n", runs.size(), hogRuns, tests.size(), flaky, skippers,
        skippers > 0 ? " (not tested in those runs: not a clean pass)" : "");
    if (flaky > 0) {
      System.out.println();
      System.out.println("| test | failures/runs | beside the hog | first failure (run) |");
      System.out.println("| --- | --- | --- | --- |");
      tests.forEach((name, t) -> {
        if (t.failures > 0) {
          System.out.printf("| %s | %d/%d | %d/%d | %s (%s) |%n", name, t.failures, t.runs, t.hogFailures, t.hogRuns,
              t.firstMessage, t.firstRun);
        }
      });
    }
    if (skippers > 0) {
      System.out.println();
      System.out.println("| skipped test | skips/runs | first reason (run) |");
      System.out.println("| --- | --- | --- |");
      tests.forEach((name, t) -> {
        if (t.skips > 0) {
          System.out.printf("| %s | %d/%d | %s (%s) |%n", name, t.skips, t.runs + t.skips, t.firstSkip, t.firstSkipRun);
        }
      });
    }
    if (flaky > 0 || skippers > 0) {
      System.exit(1);
    }
  }

  private static List<Path> reports(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.getFileName().toString().matches("TEST-.*\\.xml")).sorted().toList();
    }
  }

  private static Element child(Element e, String tag) {
    for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element c && c.getTagName().equals(tag)) {
        return c;
      }
    }
    return null;
  }

  private static String oneLine(String s) {
    String line = s.replaceAll("\\s+", " ").replace("|", "\\|").trim();
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }
}
