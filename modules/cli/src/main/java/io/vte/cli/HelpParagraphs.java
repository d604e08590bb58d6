package io.vte.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Help texts as paragraphs. The commands' annotations write a description as an array of source
 * lines, and picocli prints each element on a line of its own, which broke sentences in the middle
 * ("throughput,", then "ops/s" on the next line). Each description becomes one paragraph here,
 * which picocli wraps at the usage width; an empty element still separates two paragraphs.
 */
final class HelpParagraphs {

  private HelpParagraphs() {}

  /**
   * Joins the descriptions of a command, its options and its subcommands, recursively.
   *
   * @param command the command line as built from the annotations
   */
  static void join(CommandLine command) {
    CommandSpec spec = command.getCommandSpec();
    spec.usageMessage().description(joined(spec.usageMessage().description()));
    for (OptionSpec option : List.copyOf(spec.options())) {
      if (option.description().length > 1) {
        spec.remove(option);
        spec.addOption(option.toBuilder().description(joined(option.description())).build());
      }
    }
    command.getSubcommands().values().forEach(HelpParagraphs::join);
  }

  /**
   * @param lines a description's source lines
   * @return its paragraphs: the lines joined by spaces, an empty line ending a paragraph
   */
  static String[] joined(String[] lines) {
    List<String> paragraphs = new ArrayList<>();
    StringBuilder paragraph = new StringBuilder();
    for (String line : lines) {
      if (line.isBlank()) {
        paragraphs.add(paragraph.toString());
        paragraph.setLength(0);
      } else {
        paragraph.append(paragraph.isEmpty() ? "" : " ").append(line.strip());
      }
    }
    paragraphs.add(paragraph.toString());
    return paragraphs.toArray(String[]::new);
  }
}
