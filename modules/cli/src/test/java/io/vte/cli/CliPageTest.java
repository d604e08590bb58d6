package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample outputs of docs/cli.md are what the commands print today. Each sample is a {@code
 * text} block after a comment {@code <!-- output of: vte ARGS -->}; the test runs {@code vte ARGS}
 * in this JVM (short durations, loopback devices) and checks the sample's shape against the real
 * output: each sample line, with numbers, addresses and names of this host made generic, is found
 * in the output in the same order (a line {@code ...} stands for lines left out), and a JSON sample
 * has the output's keys. {@code TARGET} in the arguments is the server name of a {@code vte serve}
 * node this test starts; a {@code vte serve} sample is that node's startup output.
 */
class CliPageTest {

  private static final Path PAGE = Path.of("../../docs/cli.md").toAbsolutePath().normalize();
  private static final Pattern SAMPLE =
      Pattern.compile("<!-- output of: vte ([^>]*?) -->\n```text\n(.*?)```", Pattern.DOTALL);
  private static final String LOOPBACK =
      "{\"devices\": [\"cp0@127.0.0.1\", \"cp1@127.0.0.1\"], \"workersPerContext\": 1}";

  @TempDir Path dir;

  /**
   * One line made generic: numbers, GIDs, boot ids and this host's device and interface names
   * ({@code eth0}, {@code soft1}) do not count, nor does column padding.
   */
  static String shape(String line) {
    return line.replaceAll("\\b[0-9a-f]*[0-9][0-9a-f]*([:-][0-9a-f]+){2,}\\b", "ID")
        .replaceAll("\\b[a-z]+[0-9]+\\b", "NAME")
        .replaceAll("\\[NAME(, NAME)*\\]", "[NAME]")
        .replaceAll("[0-9]+(\\.[0-9]+)?", "N")
        .replaceAll("N([.:]N)+", "N")
        .replaceAll("\\s+", " ")
        .trim();
  }

  /** Where the sample's shape is not found in the output, or null when it is. */
  static String mismatch(String sample, String output) {
    String trimmed = sample.trim();
    if (trimmed.startsWith("{")) {
      Set<String> want = new TreeSet<>(new JsonObject(trimmed).fieldNames());
      String line = output.lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b).orElse("{}");
      Set<String> got = new TreeSet<>(new JsonObject(line).fieldNames());
      return want.equals(got) ? null : "JSON keys: the sample has " + want + ", the output " + got;
    }
    List<String> out = output.lines().map(CliPageTest::shape).toList();
    int at = 0;
    for (String line : trimmed.split("\n")) {
      if (line.trim().equals("...")) {
        continue;
      }
      String want = shape(line);
      int found = -1;
      for (int i = at; i < out.size(); i++) {
        if (out.get(i).equals(want)) {
          found = i;
          break;
        }
      }
      if (found < 0) {
        return "no output line like '" + line + "' (shape '" + want + "')";
      }
      at = found + 1;
    }
    return null;
  }

  @Test
  void everySampleOutputIsTheShapeOfTheCommandsOutputToday() throws Exception {
    String page = Files.readString(PAGE);
    Path conf = dir.resolve("probe.json");
    Files.writeString(conf, "{\"devices\": [\"cq0@127.0.0.1\"], \"workersPerContext\": 1}");
    Path served = dir.resolve("serve.json");
    Files.writeString(served, LOOPBACK);
    List<String> problems = new ArrayList<>();
    List<String> commands = new ArrayList<>();
    try (ServeNode node = new ServeNode("--config", served.toString(), "--http-port", "0")) {
      Matcher m = SAMPLE.matcher(page);
      while (m.find()) {
        String command = m.group(1);
        commands.add(command.split(" ")[0]);
        String output;
        if (command.startsWith("serve")) {
          output = node.output();
        } else {
          String[] args =
              Arrays.stream(command.split(" "))
                  .map(a -> a.equals("TARGET") ? node.server() : a)
                  .map(a -> a.equals("CONFIG") ? conf.toString() : a)
                  .map(a -> a.equals("OUT") ? dir.resolve("out").toString() : a)
                  .toArray(String[]::new);
          CliRun run = CliRun.of(args);
          if (run.exit() != 0) {
            problems.add("vte " + command + ": exit " + run.exit() + "\n" + run.err() + run.out());
            continue;
          }
          output = run.out();
        }
        String why = mismatch(m.group(2), output);
        if (why != null) {
          problems.add("vte " + command + ": " + why + "\n--- its output:\n" + output);
        }
      }
    }
    assertEquals(List.of(), problems, "docs/cli.md's samples against the commands' output");
    assertEquals(
        new TreeSet<>(List.of("bench", "verbs-bench", "serve", "links", "devices", "scale")),
        new TreeSet<>(commands),
        "docs/cli.md has a sample of every command");
  }

  @Test
  void aSampleOfAnotherShapeIsFound() {
    String output = "vte bench: 12.5 GiB/s over 4 rails\nlatency p50 31 us\n";
    assertEquals(null, mismatch("vte bench: 9.1 GiB/s over 2 rails\n...\n", output));
    assertTrue(mismatch("vte bench: 9.1 GB/s over 2 rails", output) != null, "unit changed");
    assertTrue(
        mismatch("latency p50 31 us\nvte bench: 1 GiB/s over 2 rails", output) != null,
        "order changed");
    assertTrue(mismatch("{\"a\": 1, \"b\": 2}", "{\"a\": 3}\n") != null, "a key is gone");
  }
}
