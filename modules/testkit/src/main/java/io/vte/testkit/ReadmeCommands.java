package io.vte.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code ./vte ...} commands a Markdown file prints, in inline code spans and in lines of
 * fenced {@code sh} blocks, so that tests run what the README shows and fail when it drifts.
 */
public final class ReadmeCommands {

  /**
   * One command as printed.
   *
   * @param command the command line, {@code ./vte ...}, whitespace collapsed, without a trailing
   *     comment
   * @param comment the trailing {@code # ...} comment of its shell line without the {@code #}, or
   *     "" (code spans and lines without one)
   */
  public record Command(String command, String comment) {

    /**
     * @return the arguments after {@code ./vte}
     */
    public List<String> args() {
      List<String> words = List.of(command.split(" "));
      return words.subList(1, words.size());
    }
  }

  private static final Pattern SH_BLOCK = Pattern.compile("```sh\n(.*?)```", Pattern.DOTALL);
  private static final Pattern SPAN = Pattern.compile("(?<!`)`([^`]+)`(?!`)");
  private static final Pattern TRAILING_COMMENT = Pattern.compile("\\s+#\\s*(.*)$");

  private ReadmeCommands() {}

  /**
   * @param markdown the file
   * @return every command in it: first those of the shell blocks (in order), then those of the code
   *     spans outside fenced blocks; a span with a {@code [} (an option synopsis) is not a command
   */
  public static List<Command> of(Path markdown) {
    return in(read(markdown));
  }

  /**
   * The commands of one part of a file: from the first occurrence of {@code from} to the next
   * {@code to}.
   *
   * @param markdown the file
   * @param from text that starts the part, e.g. a bold paragraph title
   * @param to text that ends it (the next title)
   * @return the part's commands, as {@link #of}
   * @throws AssertionError when either marker is missing, naming it
   */
  public static List<Command> between(Path markdown, String from, String to) {
    String text = read(markdown);
    int start = text.indexOf(from);
    if (start < 0) {
      throw new AssertionError(markdown + " has no '" + from + "'");
    }
    int end = text.indexOf(to, start + from.length());
    if (end < 0) {
      throw new AssertionError(markdown + " has no '" + to + "' after '" + from + "'");
    }
    return in(text.substring(start, end));
  }

  private static List<Command> in(String text) {
    List<Command> commands = new ArrayList<>();
    Matcher block = SH_BLOCK.matcher(text);
    while (block.find()) {
      for (String line : block.group(1).split("\n")) {
        Matcher comment = TRAILING_COMMENT.matcher(line);
        String note = comment.find() ? comment.group(1).strip() : "";
        String command = TRAILING_COMMENT.matcher(line).replaceFirst("").strip();
        if (command.startsWith("./vte ")) {
          commands.add(new Command(command.replaceAll("\\s+", " "), note));
        }
      }
    }
    Matcher span = SPAN.matcher(text.replaceAll("(?s)```.*?```", ""));
    while (span.find()) {
      String command = span.group(1).replaceAll("\\s+", " ").strip();
      if (command.startsWith("./vte ") && !command.contains("[")) {
        commands.add(new Command(command, ""));
      }
    }
    return commands;
  }

  private static String read(Path markdown) {
    try {
      return Files.readString(markdown);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + markdown.toAbsolutePath(), e);
    }
  }
}
