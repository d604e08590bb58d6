package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only modules/engine may use the engine's implementation package: every other module (main and
 * test sources), this suite and the examples reach the engine through io.vte.api (its diagnostics
 * and fault injector included) or the io.vte.engine entry points.
 */
class EngineInternalsImportTest {

  /** Built from parts, so that this file does not name the package it looks for. */
  static final String IMPL = "io.vte.engine" + ".impl";

  @Test
  void noSourceOutsideTheEngineModuleUsesItsImplementationPackage() {
    Path root = Path.of(System.getProperty("vte.project.dir"));
    List<Path> scanned = new ArrayList<>();
    List<String> offenders = offenders(root, scanned);
    assertTrue(
        scanned.stream().anyMatch(p -> p.startsWith(root.resolve("modules/cli/src/main"))),
        "modules/cli sources were scanned: " + scanned.size() + " files");
    assertTrue(
        scanned.stream().anyMatch(p -> p.startsWith(root.resolve("modules/vertx/src/test"))),
        "modules/vertx test sources were scanned");
    assertTrue(
        scanned.stream().anyMatch(p -> p.startsWith(root.resolve("test/src"))),
        "test/ sources were scanned");
    assertTrue(
        scanned.stream().noneMatch(p -> p.startsWith(root.resolve("modules/engine"))),
        "modules/engine is exempt");
    assertEquals(List.of(), offenders, "sources outside modules/engine that use " + IMPL);
  }

  @Test
  void aSourceOutsideTheEngineThatImportsItsImplementationIsFound(@TempDir Path root)
      throws IOException {
    write(
        root.resolve("modules/cli/src/main/java/io/vte/cli/Bad.java"),
        "package io.vte.cli;\n\nimport " + IMPL + ".TransferEngineImpl;\n\nclass Bad {}\n");
    write(
        root.resolve("modules/vertx/src/test/java/io/vte/vertx/Fqn.java"),
        "package io.vte.vertx;\n\nclass Fqn { " + IMPL + ".owner.LocalContext c; }\n");
    write(
        root.resolve("modules/engine/src/test/java/io/vte/engine/impl/Allowed.java"),
        "package " + IMPL + ";\n\nimport " + IMPL + ".owner.LocalContext;\n\nclass Allowed {}\n");
    write(
        root.resolve("test/src/test/java/io/vte/it/Clean.java"),
        "package io.vte.it;\n\nclass Clean {}\n");
    List<Path> scanned = new ArrayList<>();
    List<String> found = offenders(root, scanned);
    assertEquals(
        List.of(
            "modules/cli/src/main/java/io/vte/cli/Bad.java:3",
            "modules/vertx/src/test/java/io/vte/vertx/Fqn.java:3"),
        found);
    assertEquals(3, scanned.size(), "the engine module's sources are not scanned: " + scanned);
  }

  /**
   * @param root the repository root
   * @param scanned receives every Java source looked at
   * @return {@code path:line} of every line outside modules/engine naming the implementation
   *     package, sorted
   */
  static List<String> offenders(Path root, List<Path> scanned) {
    List<String> found = new ArrayList<>();
    for (String dir : List.of("modules", "test", "examples")) {
      Path base = root.resolve(dir);
      if (!Files.isDirectory(base)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(base)) {
        files
            .filter(
                p ->
                    p.toString().endsWith(".java")
                        && !p.startsWith(root.resolve("modules/engine"))
                        && isSource(root.relativize(p)))
            .sorted()
            .forEach(
                p -> {
                  scanned.add(p);
                  List<String> lines = read(p);
                  for (int i = 0; i < lines.size(); i++) {
                    if (lines.get(i).contains(IMPL)) {
                      found.add(root.relativize(p) + ":" + (i + 1));
                    }
                  }
                });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return found;
  }

  /**
   * @return true for a file under a {@code src} directory, not under a build's {@code target}
   */
  private static boolean isSource(Path relative) {
    boolean src = false;
    for (Path part : relative) {
      if (part.toString().equals("target")) {
        return false;
      }
      src |= part.toString().equals("src");
    }
    return src;
  }

  private static List<String> read(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }
}
