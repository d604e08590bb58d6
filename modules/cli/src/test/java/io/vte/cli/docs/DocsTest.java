package io.vte.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.AuthKey;
import io.vte.api.AuthOptions;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.IbverbsOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.TlsOptions;
import io.vte.cli.VteMain;
import io.vte.testkit.MarkdownSnippets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Keeps README.md, ARCHITECTURE.md and the pages of docs/ true: the README stays a short front
 * door, every link resolves, every Java block compiles, every flag and configuration key they name
 * exists, the error-code table is the enum, and no prose carries a date. A Java block that cannot
 * compile here says why in a comment before it.
 */
public class DocsTest {

  /** Instantiated by JUnit. */
  public DocsTest() {}

  static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  static final Path README = ROOT.resolve("README.md");

  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern SPAN = Pattern.compile("(?<!`)`([^`\n]+)`(?!`)");
  private static final Pattern JSON_KEY = Pattern.compile("\"(\\w+)\"\\s*:");
  private static final Pattern CONTEXT =
      Pattern.compile("<!-- compiled with: (.*) -->\n```java\n", Pattern.MULTILINE);
  private static final Pattern NOT_COMPILED =
      Pattern.compile("<!-- not compiled by DocsTest: (.+) -->\n```java\n", Pattern.MULTILINE);

  /**
   * A section named in prose: {@code README "Small transfers"}, {@code scale.md "Reading it"}; it
   * names a heading by the heading's first words.
   */
  private static final Pattern SECTION_REFERENCE =
      Pattern.compile(
          "\\b(README(?:\\.md)?|ARCHITECTURE(?:\\.md)?|(?:docs/)?[\\w-]+\\.md)`?,? (?:section )?\"([A-Z][^\"\n]{2,60})\"");

  /** Longest paragraph of ARCHITECTURE.md, in words. */
  private static final int MAX_PARAGRAPH_WORDS = 120;

  private static final Pattern DATED =
      Pattern.compile("20[0-9]{2}-[0-9]{2}-[0-9]{2}|third VM|2-core VM");

  /**
   * @return README.md, ARCHITECTURE.md and every page of docs/
   * @throws IOException when docs/ cannot be listed
   */
  public static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(README, ROOT.resolve("ARCHITECTURE.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  @Test
  void theReadmeIsAtMostTenKilobytes() throws IOException {
    long size = Files.size(README);
    assertTrue(size <= 10 * 1024, "README.md is " + size + " bytes; move detail into docs/");
  }

  @Test
  void theArchitectureIsAtMostSixteenKilobytesWithThreeDiagramsAndShortParagraphs()
      throws IOException {
    Path page = ROOT.resolve("ARCHITECTURE.md");
    long size = Files.size(page);
    assertTrue(size <= 16 * 1024, "ARCHITECTURE.md is " + size + " bytes; at most 16 KiB");
    String text = Files.readString(page);
    long diagrams =
        MarkdownSnippets.blocks(page).stream().filter(b -> b.language().equals("mermaid")).count();
    assertTrue(diagrams >= 3, "ARCHITECTURE.md has " + diagrams + " mermaid diagrams, not 3");
    List<String> long1 = new ArrayList<>(); // paragraphs and list items
    for (String paragraph : withoutBlocks(text).split("\n\\s*\n|\n(?=[0-9]+\\. |- )")) {
      int words = paragraph.trim().split("\\s+").length;
      if (!paragraph.trim().startsWith("|") && words > MAX_PARAGRAPH_WORDS) {
        long1.add(words + " words: " + paragraph.trim().substring(0, 60) + "...");
      }
    }
    assertEquals(
        List.of(), long1, "ARCHITECTURE.md paragraphs over " + MAX_PARAGRAPH_WORDS + " words");
  }

  @Test
  void theReadmeLinksEveryPageOfDocs() throws IOException {
    String readme = Files.readString(README);
    for (Path page : pages()) {
      if (page.getParent().equals(ROOT.resolve("docs"))) {
        assertTrue(
            readme.contains("(docs/" + page.getFileName() + ")"),
            "README.md's documentation table links " + page.getFileName());
      }
    }
  }

  /**
   * @return {@link #pages()} and the READMEs of the repository's other directories that point into
   *     them (conf/)
   * @throws IOException when docs/ cannot be listed
   */
  static List<Path> linkingPages() throws IOException {
    List<Path> pages = new ArrayList<>(pages());
    pages.add(ROOT.resolve("conf/README.md"));
    return pages;
  }

  @Test
  void everyRelativeLinkResolves() throws IOException {
    List<String> broken = new ArrayList<>();
    for (Path page : linkingPages()) {
      Matcher m = LINK.matcher(withoutCode(Files.readString(page)));
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("[a-z]+:.*")) {
          continue;
        }
        String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
        Path resolved = file.isEmpty() ? page : page.resolveSibling(file).normalize();
        if (!Files.exists(resolved)) {
          broken.add(ROOT.relativize(page) + ": " + target + " (no file)");
        } else if (target.contains("#")
            && !anchors(resolved).contains(target.substring(target.indexOf('#') + 1))) {
          broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
        }
      }
    }
    assertEquals(List.of(), broken, "broken links");
  }

  @Test
  void everySectionNamedInProseExists() throws IOException {
    List<String> broken = new ArrayList<>();
    int named = 0;
    for (Path page : linkingPages()) {
      Matcher m = SECTION_REFERENCE.matcher(withoutBlocks(Files.readString(page)));
      while (m.find()) {
        named++;
        String file = m.group(1);
        Path target =
            file.startsWith("README") || file.startsWith("ARCHITECTURE")
                ? ROOT.resolve(file.endsWith(".md") ? file : file + ".md")
                : file.startsWith("docs/") ? ROOT.resolve(file) : page.resolveSibling(file);
        String anchor = anchor(m.group(2));
        if (!Files.exists(target)
            || anchors(target).stream().noneMatch(a -> a.startsWith(anchor))) {
          broken.add(ROOT.relativize(page) + ": " + m.group() + " (no such section)");
        }
      }
    }
    assertEquals(List.of(), broken, "sections named in prose (" + named + " found)");
  }

  /** GitHub's anchor of a heading's text. */
  private static String anchor(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "").replace(' ', '-');
  }

  /** GitHub's anchors of a page's headings. */
  private static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new TreeSet<>();
    for (String line : withoutBlocks(Files.readString(page)).split("\n")) {
      if (line.startsWith("#")) {
        anchors.add(anchor(line.replaceFirst("^#+\\s*", "")));
      }
    }
    return anchors;
  }

  @Test
  void noProseCarriesADateOrAMachine() throws IOException {
    List<String> dated = new ArrayList<>();
    for (Path page : linkingPages()) {
      String text = Files.readString(page);
      if (page.getFileName().toString().equals("performance.md")) {
        // the one run stamp
        text = text.replaceAll("(?s)<!-- figures:stamp:begin -->.*<!-- figures:stamp:end -->", "");
      }
      Matcher m = DATED.matcher(text);
      while (m.find()) {
        dated.add(ROOT.relativize(page) + ": '" + m.group() + "'");
      }
    }
    assertEquals(List.of(), dated, "dated prose: the history lives in git");
  }

  @Test
  void everyJavaBlockCompiles() throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<JavaFileObject> units = new ArrayList<>();
    for (Path page : pages()) {
      String text = Files.readString(page);
      for (MarkdownSnippets.Block block : MarkdownSnippets.blocks(page)) {
        if (block.language().equals("java") && !preceded(NOT_COMPILED, text, block)) {
          String name = "Snippet" + units.size();
          units.add(source(name, wrap(name, block, context(text, block)), page, block.line()));
        }
      }
    }
    assertTrue(units.size() >= 4, "the pages' Java blocks were found: " + units.size());
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Path out = Files.createTempDirectory("docs-snippets");
    boolean ok =
        javac
            .getTask(
                null,
                null,
                diagnostics,
                List.of(
                    "-proc:none",
                    "-d",
                    out.toString(),
                    "-classpath",
                    System.getProperty("java.class.path")),
                null,
                units)
            .call();
    assertTrue(
        ok,
        () ->
            diagnostics.getDiagnostics().stream()
                .map(
                    d ->
                        d.getSource().getName()
                            + ":"
                            + d.getLineNumber()
                            + ": "
                            + d.getMessage(null))
                .reduce("a Java block does not compile:", (a, b) -> a + "\n" + b));
  }

  /** The parameters a block of statements is compiled with, from the comment before it. */
  private static String context(String page, MarkdownSnippets.Block block) {
    Matcher m = comment(CONTEXT, page, block);
    return m == null ? null : m.group(1);
  }

  /** Whether the block's fence follows a comment of that pattern (a reason it is not compiled). */
  private static boolean preceded(Pattern comment, String page, MarkdownSnippets.Block block) {
    return comment(comment, page, block) != null;
  }

  /** The comment of that pattern on the line before the block's fence, or null. */
  private static Matcher comment(Pattern comment, String page, MarkdownSnippets.Block block) {
    Matcher m = comment.matcher(page);
    while (m.find()) {
      // the newlines up to the end of the fence's line: the fence's own line number
      long fenceLine = page.substring(0, m.end()).chars().filter(c -> c == '\n').count();
      if (fenceLine == block.line()) {
        return m;
      }
    }
    return null;
  }

  private static String wrap(String name, MarkdownSnippets.Block block, String parameters) {
    String imports =
        "import io.vertx.core.*; import io.vertx.core.buffer.Buffer; import io.vertx.core.json.*;"
            + " import io.vte.api.*; import io.vte.vertx.*; import java.nio.ByteBuffer;"
            + " import java.time.Duration; import java.util.List;\n";
    String body =
        parameters == null
            ? block.code()
            : "void snippet(" + parameters + ") throws Exception {\n" + block.code() + "}\n";
    return imports + "class " + name + " {\n" + body + "}\n";
  }

  private static JavaFileObject source(String name, String code, Path page, int line) {
    return new SimpleJavaFileObject(
        java.net.URI.create("string:///" + name + ".java"), JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return code;
      }

      @Override
      public String getName() {
        return ROOT.relativize(page) + " (block at line " + line + ")";
      }
    };
  }

  @Test
  void everyFlagTheDocsNameIsAnOptionOfTheCommandLine() throws IOException {
    Set<String> flags = new TreeSet<>();
    collectFlags(VteMain.commandLine(), flags);
    List<String> unknown = new ArrayList<>();
    int named = 0;
    for (Path page : pages()) {
      Matcher m = SPAN.matcher(withoutBlocks(Files.readString(page)));
      while (m.find()) {
        String span = m.group(1);
        if (span.startsWith("--")) {
          named++;
          String flag = span.split("[ =]")[0];
          if (!flags.contains(flag)) {
            unknown.add(ROOT.relativize(page) + ": " + flag);
          }
        }
      }
    }
    assertTrue(named >= 20, "the docs' flags were found: " + named);
    assertEquals(List.of(), unknown, "flags no vte command has");
  }

  private static void collectFlags(CommandLine command, Set<String> flags) {
    for (OptionSpec option : command.getCommandSpec().options()) {
      if (option.hidden()) {
        continue;
      }
      for (String name : option.names()) {
        flags.add(name);
        if (option.negatable()) {
          flags.add(name.replaceFirst("^--", "--no-"));
        }
      }
    }
    command.getSubcommands().values().forEach(sub -> collectFlags(sub, flags));
  }

  @Test
  void everyConfigurationKeyTheDocsNameIsAnOption() throws IOException {
    Set<String> keys = new TreeSet<>(EngineOptions.KEYS);
    keys.addAll(MetadataOptions.FIELDS.names());
    keys.addAll(AuthOptions.FIELDS.names());
    keys.addAll(AuthKey.FIELDS.names());
    keys.addAll(TlsOptions.FIELDS.names());
    keys.addAll(IbverbsOptions.FIELDS.names());
    keys.addAll(List.of("address", "httpPort", "httpHost")); // TransferEngineVerticle's own
    List<String> unknown = new ArrayList<>();
    int named = 0;
    for (Path page : pages()) {
      List<String> named1 = new ArrayList<>();
      for (MarkdownSnippets.Block block : MarkdownSnippets.blocks(page)) {
        if (block.language().equals("json")) {
          jsonKeys(new JsonObject(block.code()), named1);
        }
      }
      Matcher m = SPAN.matcher(withoutBlocks(Files.readString(page)));
      while (m.find()) {
        Matcher key = JSON_KEY.matcher(m.group(1));
        while (key.find()) {
          named1.add(key.group(1));
        }
      }
      named += named1.size();
      named1.stream()
          .filter(k -> !keys.contains(k))
          .forEach(k -> unknown.add(ROOT.relativize(page) + ": " + k));
    }
    assertTrue(named >= 10, "the docs' configuration keys were found: " + named);
    assertEquals(List.of(), unknown, "configuration keys no options class has");
  }

  private static void jsonKeys(Object json, List<String> keys) {
    if (json instanceof JsonObject o) {
      for (String key : o.fieldNames()) {
        keys.add(key);
        jsonKeys(o.getValue(key), keys);
      }
    } else if (json instanceof JsonArray a) {
      a.forEach(v -> jsonKeys(v, keys));
    }
  }

  @Test
  void theConfigurationPageGroupsEveryEngineOptionOnce() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/configuration.md"));
    String table = page.substring(page.indexOf("| concern | options |"));
    table = table.substring(0, table.indexOf("\n\n"));
    List<String> grouped = new ArrayList<>();
    Matcher m = SPAN.matcher(table);
    while (m.find()) {
      grouped.add(m.group(1));
    }
    assertEquals(
        new TreeSet<>(EngineOptions.KEYS),
        new TreeSet<>(grouped),
        "docs/configuration.md's table names every engine option");
    assertEquals(EngineOptions.KEYS.size(), grouped.size(), "each once: " + grouped);
  }

  @Test
  void theErrorCodeTableIsTheEnum() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/concepts.md"));
    List<String> rows = new ArrayList<>();
    Matcher m = Pattern.compile("(?m)^\\| `([A-Z_]+)` \\|").matcher(page);
    while (m.find()) {
      rows.add(m.group(1));
    }
    assertEquals(
        Arrays.stream(ErrorCode.values()).map(Enum::name).toList(),
        rows,
        "docs/concepts.md lists every ErrorCode, in the enum's order");
  }

  private static String withoutBlocks(String markdown) {
    return markdown.replaceAll("(?ms)^```.*?^```", "");
  }

  private static String withoutCode(String markdown) {
    return SPAN.matcher(withoutBlocks(markdown)).replaceAll("");
  }
}
