package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.cli.common.ExitCodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code vte help}, the one-line descriptions of the command lists, and the exit-code table of
 * every command.
 */
class HelpAndExitCodesTest {

  private static final Path CLI_PAGE = Path.of("../../docs/cli.md").toAbsolutePath().normalize();

  @Test
  void helpPrintsWhatDashDashHelpPrints() {
    CliRun root = CliRun.of("--help");
    assertEquals(0, root.exit(), root.err());
    CliRun help = CliRun.of("help");
    assertEquals(0, help.exit(), help.err());
    assertEquals(root.out(), help.out());
    for (String command : List.of("bench", "serve", "links", "devices", "verbs-bench", "scale")) {
      CliRun own = CliRun.of(command, "--help");
      CliRun viaHelp = CliRun.of("help", command);
      assertEquals(0, viaHelp.exit(), viaHelp.err());
      assertEquals(own.out(), viaHelp.out(), command);
    }
    CliRun unknown = CliRun.of("help", "no-such-command");
    assertEquals(2, unknown.exit(), unknown.out() + unknown.err());
  }

  @Test
  void everyCommandListEntryIsOneCompleteSentenceOnOneLine() {
    List<CommandLine> parents = new ArrayList<>(List.of(VteMain.commandLine()));
    int checked = 0;
    while (!parents.isEmpty()) {
      CommandLine parent = parents.remove(0);
      String usage = parent.getUsageMessage();
      for (Map.Entry<String, CommandLine> sub : parent.getSubcommands().entrySet()) {
        String[] header = sub.getValue().getCommandSpec().usageMessage().header();
        String line = header.length > 0 ? header[0] : "";
        assertTrue(
            line.endsWith("."),
            sub.getKey() + ": the list shows a complete sentence, got '" + line + "'");
        assertTrue(
            usage
                .lines()
                .anyMatch(
                    l ->
                        l.matches(
                            "\\s+" + sub.getKey() + "\\s+" + java.util.regex.Pattern.quote(line))),
            sub.getKey()
                + "'s entry fits one line of "
                + parent.getCommandName()
                + "'s help:\n"
                + usage);
        parents.add(sub.getValue());
        checked++;
      }
      assertTrue(usage.lines().allMatch(l -> l.length() <= 80), "within 80 columns:\n" + usage);
    }
    assertTrue(checked >= 8, "commands checked: " + checked);
  }

  /**
   * A description is printed as paragraphs that picocli wraps: a line ends only where the next word
   * would not fit in the 80 columns (the synopsis, and option names on a line of their own, aside).
   * Descriptions written as arrays of source lines used to break sentences mid-line.
   */
  @Test
  void everyHelpBreaksALineOnlyWhereTheNextWordWouldNotFit() {
    List<CommandLine> commands = new ArrayList<>(List.of(VteMain.commandLine()));
    List<String> forced = new ArrayList<>();
    int lines = 0;
    while (!commands.isEmpty()) {
      CommandLine command = commands.remove(0);
      commands.addAll(command.getSubcommands().values());
      List<String> usage = command.getUsageMessage().lines().toList();
      for (int i = 0; i + 1 < usage.size(); i++) {
        lines++;
        String line = usage.get(i);
        String next = usage.get(i + 1);
        if (continues(line, next) && line.length() + 1 + next.strip().split(" ")[0].length() < 80) {
          forced.add(
              command.getCommandSpec().qualifiedName() + ": '" + line + "' / '" + next + "'");
        }
      }
    }
    assertTrue(lines > 200, "help lines checked: " + lines);
    assertEquals(List.of(), forced, "lines broken before the width");
  }

  /** Whether {@code next} continues the paragraph of {@code line} (not a new option or item). */
  private static boolean continues(String line, String next) {
    if (line.isBlank()
        || next.isBlank()
        || line.startsWith("Usage:")
        || line.strip().startsWith("[")
        || next.strip().startsWith("[")
        || next.strip().startsWith("-")
        || line.matches("\\s*(-\\S+,? )*-\\S+")) {
      return false;
    }
    int indent = line.length() - line.stripLeading().length();
    int nextIndent = next.length() - next.stripLeading().length();
    return nextIndent >= 10 || (indent == 0 && nextIndent == 0 && !next.startsWith("Usage:"));
  }

  @Test
  void everyHelpEndsWithOneOrTwoExamplesThatParse() {
    List<CommandLine> commands = new ArrayList<>(List.of(VteMain.commandLine()));
    int checked = 0;
    while (!commands.isEmpty()) {
      CommandLine command = commands.remove(0);
      commands.addAll(command.getSubcommands().values());
      String name = command.getCommandSpec().qualifiedName();
      List<String> lines = command.getUsageMessage().strip().lines().toList();
      List<String> examples =
          lines.subList(lines.lastIndexOf("Examples:") + 1, lines.size()).stream()
              .map(String::strip)
              .toList();
      assertTrue(lines.contains("Examples:"), name + "'s help ends with examples:\n" + lines);
      assertTrue(examples.size() == 1 || examples.size() == 2, name + ": " + examples);
      for (String example : examples) {
        assertTrue(example.startsWith("./vte "), name + ": " + example);
        String[] args = example.substring("./vte ".length()).split(" ");
        VteMain.commandLine().parseArgs(args); // a ParameterException names the bad example
      }
      checked++;
    }
    assertTrue(checked >= 10, "commands checked: " + checked);
  }

  @Test
  void theHelpFooterListsTheExitCodesAndTheCliPageShowsTheSameTable() throws IOException {
    String footer = CliRun.of("--help").out();
    String page = Files.readString(CLI_PAGE);
    List<String> rows =
        footer
            .lines()
            .dropWhile(l -> !l.startsWith("Exit codes"))
            .skip(1)
            .takeWhile(l -> !l.isBlank())
            .toList();
    assertEquals(4, rows.size(), footer);
    for (int code = 0; code < 4; code++) {
      String row = rows.get(code);
      assertTrue(row.startsWith("  " + code + "  "), row);
      assertTrue(page.contains(row + "\n"), "docs/cli.md shows the exit code row '" + row + "'");
    }
  }

  @Test
  void usageErrorsExitTwoInEveryCommand() {
    for (String[] args :
        List.of(
            new String[] {"bench", "--operation", "copy"},
            new String[] {"bench", "target", "--port", "-1"},
            new String[] {"bench", "initiator"},
            new String[] {"serve", "--http-port", "70000"},
            new String[] {"serve", "--pool-size", "-1"},
            new String[] {"serve", "--pool-size", "lots"},
            new String[] {"links"},
            new String[] {"links", "--target", "h:1", "--timeout-ms", "0"},
            new String[] {"devices", "--verbose"},
            new String[] {"verbs-bench", "--size", "0"},
            new String[] {"scale", "--hosts", "1"},
            new String[] {"scale", "--time-scale", "0.5"},
            new String[] {"scale", "--handshakes-in-flight", "0"},
            new String[] {"no-such-command"})) {
      CliRun r = CliRun.of(args);
      assertEquals(ExitCodes.USAGE, r.exit(), String.join(" ", args) + ": " + r.err());
      assertEquals(1, r.err().lines().count(), r.err());
    }
  }

  @Test
  void aCommandThatCannotStartExitsThreeAndAFailedRunOne() throws Exception {
    int closed;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    CliRun unreachable =
        CliRun.of(
            "bench",
            "initiator",
            "--devices",
            "1",
            "--target",
            "127.0.0.1:" + closed,
            "--handshake-timeout",
            "2");
    assertEquals(ExitCodes.COULD_NOT_START, unreachable.exit(), unreachable.err());
    assertTrue(
        unreachable.err().startsWith("vte bench initiator: ")
            && unreachable.err().contains("PEER_UNREACHABLE"),
        unreachable.err());
    CliRun missing = CliRun.of("links", "--target", "127.0.0.1:1", "--config", "no-such-file.json");
    assertEquals(ExitCodes.COULD_NOT_START, missing.exit(), missing.err());

    CliRun failed =
        CliRun.of(
            "bench",
            "--duration",
            "0.5",
            "--warmup",
            "0",
            "--block-size",
            "64K",
            "--no-progress",
            "--json",
            "--handshake-timeout",
            "30",
            "--inject",
            "port-down:src0@0s,port-down:src1@0s");
    assertEquals(ExitCodes.RUN_FAILED, failed.exit(), failed.err() + failed.out());
    assertTrue(
        new io.vertx.core.json.JsonObject(failed.out().trim()).getLong("failed") > 0, failed.out());
  }
}
