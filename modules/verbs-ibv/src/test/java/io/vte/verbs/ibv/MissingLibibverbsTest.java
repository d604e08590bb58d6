package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A JVM whose dynamic linker finds an unusable libibverbs.so.1 gets a plain cause, not a crash. */
class MissingLibibverbsTest {

  @Test
  void unusableLibibverbsIsNamedWithTheFix(@TempDir Path dir) throws Exception {
    assumeTrue(
        getClass().getClassLoader().getResource(IbvLibrary.RESOURCE) != null,
        "the shim was not built here");
    Files.write(dir.resolve("libibverbs.so.1"), new byte[0]);
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            PrintUnavailabilityCause.class.getName());
    pb.environment().put("LD_LIBRARY_PATH", dir.toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "forked JVM did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.contains("libibverbs.so.1 is missing or unusable"), out);
    assertTrue(out.contains("use the 'soft' verbs provider"), out);
  }
}
