package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Mooncake's own binaries, built from the source snapshot by {@code
 * test/mooncake/build-mooncake.sh} into a cache keyed by the snapshot's hash (the first run on a
 * machine builds, about 4 minutes on 2 idle cores; later runs find them at once). Where there is no
 * snapshot the interop tests are skipped, except under CI ({@code CI=true}), where they fail.
 */
final class MooncakeBinaries {

  private static final long BUILD_MINUTES = 45;
  private static Path home;

  private MooncakeBinaries() {}

  /**
   * @return the cache directory holding {@code bin/} and {@code lib/}
   */
  static synchronized Path home() throws IOException, InterruptedException {
    if (home != null) {
      return home;
    }
    Path project = Path.of(System.getProperty("vte.project.dir", "../.."));
    Path script = project.resolve("test/mooncake/build-mooncake.sh");
    Path log = Path.of("target/mooncake-build.log");
    Files.createDirectories(log.getParent());
    Process p =
        new ProcessBuilder("bash", script.toString())
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .redirectError(log.toFile())
            .start();
    String out = new String(p.getInputStream().readAllBytes()).trim();
    if (!p.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      fail(
          "building Mooncake took over " + BUILD_MINUTES + " minutes; see " + log.toAbsolutePath());
    }
    if (p.exitValue() == 3) {
      String why = "no Mooncake source snapshot: " + Files.readString(log).trim();
      if ("true".equals(System.getenv("CI"))) {
        fail(why + " (CI must run the Mooncake interop tests)");
      }
      Assumptions.abort(why);
    }
    if (p.exitValue() != 0) {
      fail("building Mooncake failed (exit " + p.exitValue() + "): " + tail(log));
    }
    List<String> lines = out.lines().toList();
    home = Path.of(lines.get(lines.size() - 1));
    return home;
  }

  /**
   * @return the path of a built binary
   */
  static Path binary(String name) throws IOException, InterruptedException {
    return home().resolve("bin").resolve(name);
  }

  private static String tail(Path log) throws IOException {
    List<String> lines = Files.readAllLines(log);
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
  }
}
