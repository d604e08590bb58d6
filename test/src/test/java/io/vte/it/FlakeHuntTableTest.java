package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code test/FlakeHuntTable.java}, the flake hunt's table, on made-up Surefire reports: failures
 * and skips are counted, so a hunt in which tests skipped cannot read "0 failed" and pass.
 */
class FlakeHuntTableTest {

  private static final String PASSED = "<testcase classname=\"a.T\" name=\"passes\" time=\"1\"/>";
  private static final String SKIPPED =
      "<testcase classname=\"a.T\" name=\"needsNamespaces\" time=\"0\">"
          + "<skipped message=\"network namespaces unavailable: not root\"/></testcase>";
  private static final String FAILED =
      "<testcase classname=\"a.T\" name=\"fails\" time=\"1\">"
          + "<failure message=\"expected 0 but was 1\" type=\"AssertionError\"/></testcase>";

  @TempDir static Path classes;

  @TempDir Path hunt;

  /**
   * Compiled once: a single-file launch compiles it again each time (seconds on a busy machine).
   */
  @BeforeAll
  static void compile() {
    assertEquals(
        0,
        ToolProvider.getSystemJavaCompiler()
            .run(
                null,
                null,
                null,
                "-d",
                classes.toString(),
                Path.of("FlakeHuntTable.java").toAbsolutePath().toString()),
        "test/FlakeHuntTable.java compiles");
  }

  @Test
  void aHuntWhereTestsSkippedIsNotACleanPassAndNamesThem() throws Exception {
    report("run-1", PASSED, SKIPPED);
    report("run-2", PASSED, SKIPPED);
    runs("run-1 hog=0 maven=0 seconds=10", "run-2 hog=1 maven=0 seconds=12");
    Table t = table();
    assertEquals(1, t.status, t.out);
    assertTrue(t.out.contains("| run-1 | no | 0 | 10 | 1 | 0 | 1 |"), t.out);
    assertTrue(t.out.contains("0 failed at least once, 1 skipped at least once"), t.out);
    assertTrue(
        t.out.contains(
            "| a.T#needsNamespaces | 2/2 | network namespaces unavailable: not root (run-1) |"),
        t.out);
  }

  @Test
  void failuresAndSkipsAreCountedApart() throws Exception {
    report("run-1", PASSED, FAILED, SKIPPED);
    runs("run-1 hog=0 maven=0 seconds=10");
    Table t = table();
    assertEquals(1, t.status, t.out);
    assertTrue(t.out.contains("| run-1 | no | 0 | 10 | 2 | 1 | 1 |"), t.out);
    assertTrue(t.out.contains("| a.T#fails | 1/1 | 0/0 | expected 0 but was 1 (run-1) |"), t.out);
    assertTrue(t.out.contains("1 failed at least once, 1 skipped at least once"), t.out);
  }

  @Test
  void aHuntWhereEverythingRanAndPassedIsClean() throws Exception {
    report("run-1", PASSED);
    runs("run-1 hog=0 maven=0 seconds=10");
    Table t = table();
    assertEquals(0, t.status, t.out);
    assertTrue(t.out.contains("0 failed at least once, 0 skipped at least once"), t.out);
    assertFalse(t.out.contains("skipped test"), t.out);
  }

  private record Table(int status, String out) {}

  private void report(String run, String... cases) throws IOException {
    Path dir = Files.createDirectories(hunt.resolve(run).resolve("reports").resolve("m"));
    Files.writeString(
        dir.resolve("TEST-a.T.xml"),
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><testsuite name=\"a.T\">"
            + String.join("", cases)
            + "</testsuite>");
  }

  private void runs(String... lines) throws IOException {
    Files.write(hunt.resolve("runs.txt"), List.of(lines));
  }

  private Table table() throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classes.toString(),
                "FlakeHuntTable",
                hunt.toString())
            .redirectErrorStream(true)
            .start();
    p.getOutputStream().close();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(LocalEngines.WAIT.toSeconds(), TimeUnit.SECONDS), "the table ends");
    return new Table(p.exitValue(), out);
  }
}
