package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
    return ForkedJvm.run(
        Path.of(System.getProperty("vte.ibv.fake.library")).getParent(),
        List.of("-D" + IbvLibrary.NativeLibraryLoader.DIRECTORY_PROPERTY + "=" + libraryDir),
        PrintUnavailabilityCause.class);
  }

  @Test
  void theShimIsUnpackedUnderTheConfiguredDirectory(@TempDir Path dir) throws Exception {
    Path custom = dir.resolve("exec-ok");
    assertTrue(run(custom).contains("available"));
    assertTrue(Files.isDirectory(custom), "created and used");
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    String out = run(file.resolve("below"));
    assertTrue(out.contains("-D" + IbvLibrary.NativeLibraryLoader.DIRECTORY_PROPERTY), out);
  }
}
