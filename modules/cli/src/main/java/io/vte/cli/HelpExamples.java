package io.vte.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The one or two examples each command's help ends with, kept in one table so that every command
 * has them and a test can run them through the parser.
 */
final class HelpExamples {

  /** Examples by the command's qualified name, each a full command line. */
  static final Map<String, List<String>> EXAMPLES =
      Map.of(
          "vte", List.of("./vte bench", "./vte help bench"),
          "vte devices", List.of("./vte devices"),
          "vte verbs-bench", List.of("./vte verbs-bench --seconds 4 --json"),
          "vte bench",
              List.of(
                  "./vte bench --baseline --block-size 4K",
                  "./vte bench --duration 5 --inject port-down:src1@1s,port-up:src1@3s"),
          "vte bench target", List.of("./vte bench target --port 40001 --segment-name node-a"),
          "vte bench initiator",
              List.of("./vte bench initiator --target 198.18.0.1:40001 --operation read"),
          "vte serve", List.of("./vte serve --config conf/vte.json --http-port 9100"),
          "vte links", List.of("./vte links --target 198.18.0.1:40001"),
          "vte scale", List.of("./vte scale --hosts 2,4,8 --storm"),
          "vte help", List.of("./vte help bench"));

  private HelpExamples() {}

  /**
   * Ends the help of the command and of its subcommands, recursively, with their examples.
   *
   * @param command the command line as built from the annotations
   */
  static void add(CommandLine command) {
    CommandSpec spec = command.getCommandSpec();
    List<String> examples = EXAMPLES.get(spec.qualifiedName());
    if (examples != null) {
      List<String> footer = new ArrayList<>(List.of(spec.usageMessage().footer()));
      footer.add("");
      footer.add("Examples:");
      examples.forEach(e -> footer.add("  " + e));
      spec.usageMessage().footer(footer.toArray(String[]::new));
    }
    command.getSubcommands().values().forEach(HelpExamples::add);
  }
}
