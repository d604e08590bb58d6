package io.vte.cli.figures;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/regenerate-figures.sh --quick} on a copy of docs/performance.md, with this module's
 * class path: every figures section is rewritten with the command that made it and a table of
 * measured numbers, the stamp names today's date and this machine's cores, scale.png lands beside
 * the page, and the text outside the markers stays as it was.
 */
class RegenerateFiguresTest {

  private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
  private static final Path PAGE = ROOT.resolve("docs/performance.md");
  private static final Pattern SECTION =
      Pattern.compile("(?s)<!-- figures:([a-z-]+):begin -->\n(.*?)\n<!-- figures:\\1:end -->");
  private static final Pattern NUMBER_ROW = Pattern.compile("(?m)^\\| [0-9.]+[KM]? \\|.*[0-9]");

  @TempDir Path dir;

  @Test
  void theQuickRunRewritesEveryFiguresSectionAndNothingElse() throws Exception {
    Path copy = dir.resolve("performance.md");
    Files.copy(PAGE, copy);
    ProcessBuilder script =
        new ProcessBuilder(
                "bash",
                ROOT.resolve("docs/regenerate-figures.sh").toString(),
                "--quick",
                "--page",
                copy.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("run.log").toFile());
    script.environment().put("VTE_CLASSPATH", System.getProperty("java.class.path"));
    Process p = script.start();
    assertTrue(p.waitFor(15, TimeUnit.MINUTES), "the quick run ends");
    String log = Files.readString(dir.resolve("run.log"));
    assertEquals(0, p.exitValue(), log);

    String before = Files.readString(PAGE);
    String after = Files.readString(copy);
    assertEquals(
        SECTION.matcher(before).replaceAll("$1"),
        SECTION.matcher(after).replaceAll("$1"),
        "only the figures sections changed");
    Matcher m = SECTION.matcher(after);
    List<String> names = new ArrayList<>();
    while (m.find()) {
      names.add(m.group(1));
      String body = m.group(2);
      if (m.group(1).equals("stamp")) {
        assertTrue(body.contains(LocalDate.now(ZoneOffset.UTC).toString()), body);
        assertTrue(body.contains(Runtime.getRuntime().availableProcessors() + " cores"), body);
        continue;
      }
      assertTrue(body.contains("`./vte "), m.group(1) + " names its command: " + body);
      assertTrue(NUMBER_ROW.matcher(body).find(), m.group(1) + " has a row of figures: " + body);
      assertFalse(body.contains("Not generated"), body);
    }
    assertEquals(List.of("stamp", "engine", "shared-memory", "verbs", "scale"), names);
    assertTrue(Files.size(dir.resolve("scale.png")) > 1000, "scale.png beside the page");
  }

  @Test
  void aPageWithoutTheMarkersIsRefusedNamingTheMarker() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> MarkedSections.replace("# no markers\n", "engine", "| a |"));
    assertTrue(e.getMessage().contains("<!-- figures:engine:begin -->"), e.getMessage());
  }
}
