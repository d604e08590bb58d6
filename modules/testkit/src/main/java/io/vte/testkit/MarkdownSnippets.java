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
 * Code that a Markdown page prints and a test runs: the fenced blocks of a page, and the marked
 * region of a source file a page's block must equal, so that a test fails when the page and the
 * code drift apart.
 */
public final class MarkdownSnippets {

  /**
   * One fenced block of a page.
   *
   * @param language the info string after the opening fence ({@code java}, {@code sh}, or "")
   * @param code the block's text, each line ending with a newline, trailing spaces stripped
   * @param line the 1-based line of the opening fence, for messages
   */
  public record Block(String language, String code, int line) {}

  private static final Pattern FENCE =
      Pattern.compile("^```([a-z]*)\n(.*?)^```", Pattern.DOTALL | Pattern.MULTILINE);

  private MarkdownSnippets() {}

  /**
   * @param markdown the page
   * @return its fenced blocks, in order
   */
  public static List<Block> blocks(Path markdown) {
    String text = read(markdown);
    List<Block> blocks = new ArrayList<>();
    Matcher m = FENCE.matcher(text);
    while (m.find()) {
      int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
      blocks.add(new Block(m.group(1), stripTrailing(m.group(2)), line));
    }
    return blocks;
  }

  /**
   * @param markdown the page
   * @param from text that comes before the block, e.g. a heading
   * @return the first {@code java} block after the first occurrence of {@code from}
   * @throws AssertionError when there is no such text or block, naming it
   */
  public static String javaBlockAfter(Path markdown, String from) {
    String text = read(markdown);
    int at = text.indexOf(from);
    if (at < 0) {
      throw new AssertionError(markdown + " has no '" + from + "'");
    }
    int line = (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
    return blocks(markdown).stream()
        .filter(b -> b.line() > line && b.language().equals("java"))
        .findFirst()
        .orElseThrow(() -> new AssertionError(markdown + " has no java block after '" + from + "'"))
        .code();
  }

  /**
   * The lines of a source file between {@code // MARKER:begin} and {@code // MARKER:end}, with the
   * given indent removed and trailing spaces stripped: what a page prints of it.
   *
   * @param source the source file
   * @param marker the marker's name, e.g. {@code README:verticle-example}
   * @param indent the indent the region has in the source
   * @return the region's text
   * @throws AssertionError when a marker is missing
   */
  public static String marked(Path source, String marker, String indent) {
    String text = read(source);
    String begin = "// " + marker + ":begin\n";
    int from = text.indexOf(begin);
    int to = text.indexOf(indent + "// " + marker + ":end", from);
    if (from < 0 || to < 0) {
      throw new AssertionError(source + " has no region '" + marker + "'");
    }
    StringBuilder out = new StringBuilder();
    for (String line : text.substring(from + begin.length(), to).split("\n", -1)) {
      out.append(line.startsWith(indent) ? line.substring(indent.length()) : line).append('\n');
    }
    return stripTrailing(out.substring(0, out.length() - 1));
  }

  private static String stripTrailing(String code) {
    StringBuilder out = new StringBuilder();
    code.lines().forEach(l -> out.append(l.stripTrailing()).append('\n'));
    return out.toString();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file.toAbsolutePath(), e);
    }
  }
}
