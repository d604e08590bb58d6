package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shim is unpacked under {@code -Dvte.ibverbs.libraryDir} when given (for hosts whose /tmp is
 * mounted noexec), and a failure there names the property.
 */
@Tag("fake")
class LibraryDirectoryTest {

  private static String run(Path libraryDir) throws Exception {
    Path fake = Path.of(System.getProperty("vte.ibv.fake.library"));
    ProcessBuilder pb =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-D" + NativeLibraryLoader.DIRECTORY_PROPERTY + "=" + libraryDir,
            "-cp",
            System.getProperty("java.class.path"),
            PrintUnavailabilityCause.class.getName());
    pb.environment().put("LD_LIBRARY_PATH", fake.getParent().toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "forked JVM did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    return out;
  }

  @Test
  void theShimIsUnpackedUnderTheConfiguredDirectory(@TempDir Path dir) throws Exception {
    Path custom = dir.resolve("exec-ok");
    assertTrue(run(custom).contains("available"));
    assertTrue(Files.isDirectory(custom), "created and used");
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    String out = run(file.resolve("below"));
    assertTrue(out.contains("-D" + NativeLibraryLoader.DIRECTORY_PROPERTY), out);
  }
}
