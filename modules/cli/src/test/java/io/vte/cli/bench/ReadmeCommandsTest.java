package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.cli.CliRun;
import io.vte.cli.VteMain;
import io.vte.cli.docs.DocsTest;
import io.vte.testkit.Await;
import io.vte.testkit.ReadmeCommands;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The {@code ./vte} commands README.md and the pages of docs/ print, read from their code spans and
 * shell blocks, so that the test fails when a page drifts: every one parses, and every {@code
 * --inject} example runs in the mode it is shown in (placeholders ADDRESS and HOST:PORT become
 * 127.0.0.1 and a running target's server name).
 */
class ReadmeCommandsTest {

  private static final Duration START = Duration.ofSeconds(60);

  /**
   * Every {@code ./vte ...} command of README.md and docs/, page by page: inline code spans and
   * lines of fenced shell blocks.
   */
  static List<String> commands() throws IOException {
    List<String> commands = new ArrayList<>();
    for (Path page : DocsTest.pages()) {
      ReadmeCommands.of(page).forEach(c -> commands.add(c.command()));
    }
    return commands;
  }

  private static String[] args(String command, String target) {
    String filled =
        command
            .replace("ADDRESS", "127.0.0.1")
            .replace("HOST:PORT", target == null ? "HOST:PORT" : target);
    return Arrays.copyOfRange(filled.split(" "), 1, filled.split(" ").length);
  }

  @Test
  void everyPrintedCommandParses() throws IOException {
    List<String> commands = commands();
    assertTrue(commands.size() >= 20, "the pages' commands were found: " + commands);
    for (String command : commands) {
      try {
        VteMain.commandLine().parseArgs(args(command, "127.0.0.1:40001"));
      } catch (picocli.CommandLine.ParameterException e) {
        throw new AssertionError(
            "a printed command does not parse: " + command + ": " + e.getMessage(), e);
      }
    }
  }

  @Test
  void everyPrintedInjectExampleRunsInItsMode() throws Exception {
    List<String> examples = commands().stream().filter(c -> c.contains("--inject ")).toList();
    List<String> modes = new ArrayList<>();
    for (String example : examples) {
      String[] args = args(example, null);
      String mode = args.length > 1 && !args[1].startsWith("-") ? args[1] : "embedded";
      modes.add(mode);
      int steps = args[Arrays.asList(args).indexOf("--inject") + 1].split(",").length;
      switch (mode) {
        case "embedded" -> runEmbedded(example, args, steps);
        case "target" -> runTarget(example, args, steps);
        case "initiator" -> runInitiator(example, steps);
        default -> throw new AssertionError("a --inject example in an unknown mode: " + example);
      }
    }
    assertEquals(
        List.of("embedded", "target", "initiator"),
        modes,
        "docs/cli.md shows --inject in each mode: " + examples);
  }

  private static void runEmbedded(String example, String[] args, int steps) {
    List<String> withJson = new ArrayList<>(List.of(args));
    withJson.addAll(List.of("--json", "--no-progress"));
    CliRun r = CliRun.of(withJson.toArray(String[]::new));
    assertReport(example, r, steps);
  }

  private static void runInitiator(String example, int steps) throws Exception {
    try (ChildVte target =
        new ChildVte("bench", "target", "--devices", "2", "--json", "--buffer-size", "67108864")) {
      String announce = target.firstLine(START);
      assertNotNull(announce, "target stderr: " + target.err());
      List<String> withJson =
          new ArrayList<>(
              List.of(args(example, new JsonObject(announce).getString("server_name"))));
      withJson.addAll(List.of("--json", "--no-progress"));
      assertReport(example, CliRun.of(withJson.toArray(String[]::new)), steps);
      target.terminate();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }

  private static void assertReport(String example, CliRun r, int steps) {
    assertTrue(r.exit() == 0 || r.exit() == 1, example + ": " + r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(1, lines.size(), example + ": " + r.out() + r.err());
    JsonObject json = new JsonObject(lines.get(0));
    assertEquals(steps, json.getJsonArray("faults").size(), example + ": " + json);
    for (Object f : json.getJsonArray("faults")) {
      assertTrue(f.toString().contains(" applied"), example + ": " + json);
    }
    long byCause =
        json.getJsonObject("failures").stream()
            .mapToLong(e -> ((Number) e.getValue()).longValue())
            .sum();
    assertEquals(
        json.getLong("failed").longValue(), byCause, "every failure has its cause: " + json);
    assertEquals(
        json.getLong("failed") == 0 && !json.getBoolean("stalled") ? 0 : 1,
        r.exit(),
        r.err() + json);
    assertEquals(true, json.getBoolean("verified"), example + ": " + json);
  }

  private static void runTarget(String example, String[] args, int steps) throws Exception {
    try (ChildVte target = new ChildVte(args)) {
      String announce = target.firstLine(START);
      assertNotNull(announce, example + ": " + target.err());
      assertTrue(announce.startsWith("vte bench target: serving 127.0.0.1:"), announce);
      Await.until(
          example + ": every step applied",
          START,
          () ->
              target.err().stream()
                      .filter(
                          l -> l.startsWith("vte bench target: fault ") && l.endsWith(" applied"))
                      .count()
                  == steps);
      target.terminate();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }
}
