package io.vte.cli.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.DiagnosticCollector;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The aggregated API documentation of the modules a user depends on builds with doclint on and
 * without a warning, and every public type of {@code io.vte.api} has a class comment that shows how
 * to get or use one.
 */
class JavadocTest {

  private static final Path ROOT = DocsTest.ROOT;

  /**
   * The library modules of the BOM (a user compiles against them; the CLI and testkit are tools).
   */
  static final List<String> PUBLIC_MODULES =
      List.of(
          "api",
          "verbs",
          "verbs-soft",
          "verbs-ibv",
          "handshake",
          "metadata",
          "metadata-etcd",
          "engine",
          "vertx",
          "mooncake");

  private static final Pattern PUBLIC_TYPE =
      Pattern.compile(
          "(?ms)(/\\*\\*(?:(?!\\*/).)*\\*/\\s*)?(?:@\\w+(?:\\([^)]*\\))?\\s*)*"
              + "^public (?:final |abstract |sealed |non-sealed )*(?:class|interface|enum|record|@interface) (\\w+)");

  @Test
  void theAggregatedJavadocHasNoWarning() throws IOException {
    List<Path> sources = new ArrayList<>();
    for (String module : PUBLIC_MODULES) {
      try (Stream<Path> files = Files.walk(ROOT.resolve("modules/" + module + "/src/main/java"))) {
        files.filter(p -> p.toString().endsWith(".java")).forEach(sources::add);
      }
    }
    DocumentationTool javadoc = ToolProvider.getSystemDocumentationTool();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Path out = Files.createTempDirectory("vte-javadoc");
    StringWriter log = new StringWriter();
    try (StandardJavaFileManager files = javadoc.getStandardFileManager(diagnostics, null, null)) {
      boolean ok =
          javadoc
              .getTask(
                  new PrintWriter(log),
                  files,
                  diagnostics,
                  null,
                  List.of(
                      "-quiet",
                      "--release",
                      "17",
                      "-Xdoclint:all,-missing",
                      "-Xmaxwarns",
                      "10000",
                      "-d",
                      out.toString(),
                      "-classpath",
                      System.getProperty("java.class.path")),
                  files.getJavaFileObjectsFromPaths(sources))
              .call();
      List<String> problems =
          diagnostics.getDiagnostics().stream()
              .filter(d -> d.getKind() != javax.tools.Diagnostic.Kind.NOTE)
              .map(
                  d ->
                      (d.getSource() == null ? "" : ROOT.relativize(Path.of(d.getSource().toUri())))
                          + ":"
                          + d.getLineNumber()
                          + ": "
                          + d.getKind()
                          + ": "
                          + d.getMessage(null))
              .toList();
      assertEquals(List.of(), problems, "javadoc warnings and errors\n" + log);
      assertTrue(ok, "javadoc ran: " + log);
    }
    assertTrue(
        Files.exists(out.resolve("io/vte/api/TransferEngine.html")), "the pages were written");
  }

  @Test
  void everyPublicApiTypeHasAClassCommentWithAUsageLine() throws IOException {
    List<String> bare = new ArrayList<>();
    int types = 0;
    try (Stream<Path> files = Files.walk(ROOT.resolve("modules/api/src/main/java/io/vte/api"))) {
      for (Path file : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        if (file.getFileName().toString().equals("package-info.java")) {
          continue;
        }
        Matcher m = PUBLIC_TYPE.matcher(Files.readString(file));
        if (!m.find()) {
          continue;
        }
        types++;
        String comment = m.group(1);
        if (comment == null) {
          bare.add(m.group(2) + ": no class comment");
        } else if (!comment.contains("{@code")
            && !comment.contains("<pre>")
            && !USAGE.matcher(comment).find()) {
          bare.add(m.group(2) + ": no usage line ({@code ...} example or 'obtained from ...')");
        }
      }
    }
    assertTrue(types >= 20, "the api's public types were found: " + types);
    assertEquals(List.of(), bare, "public io.vte.api types without a class comment and usage line");
  }

  /** A sentence that says where an instance comes from. */
  private static final Pattern USAGE =
      Pattern.compile(
          "(?i)\\b(obtained|returned|made|created|built|given|passed|read) (from|by|to|with)\\b");
}
