package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Main code stays readable in one sitting: no main source file over {@link #MAX_LINES} lines and no
 * implementation package over {@link #MAX_CLASSES} classes (generated code excepted: it is never
 * under src/). The public API and the verbs SPI, packages of small value types, may hold more.
 *
 * <p>The offenders of the day are listed in {@link #BEING_FIXED}, each with its size then (the most
 * it may have) and the helper fixing it. The list only shrinks: a new offender fails, an offender
 * that grew fails, and so does an entry that is no longer an offender (delete it). Once the list is
 * empty the limits hold everywhere.
 */
class SizeLimitsTest {

  static final int MAX_LINES = 500;
  static final int MAX_CLASSES = 20;

  /** The public API and the verbs SPI: packages of small value types, exempt from the count. */
  static final Set<String> VALUE_PACKAGES = Set.of("io.vte.api", "io.vte.verbs");

  /**
   * Offenders being fixed: a file (path) or a package (name) with its size at the time it was
   * listed, and the helper fixing it.
   */
  static final List<Allowed> BEING_FIXED = List.of();

  /**
   * An offender being fixed.
   *
   * @param what a file's path from the repository root, or a package's name
   * @param size its lines or classes when it was listed: the most it may have until fixed
   * @param owner the helper fixing it
   */
  record Allowed(String what, int size, String owner) {}

  @Test
  void everyOffenderIsBeingFixedAndNoneGrew() {
    Path root = Path.of(System.getProperty("vte.project.dir"));
    Map<String, Integer> found = offenders(root);
    assertTrue(
        MainSources.under(root).stream()
            .anyMatch(p -> p.startsWith("modules/engine/src/main/java")),
        "the engine's main sources were scanned");
    List<String> problems = new ArrayList<>();
    Map<String, Allowed> allowed = new TreeMap<>();
    BEING_FIXED.forEach(a -> allowed.put(a.what(), a));
    found.forEach(
        (what, size) -> {
          Allowed a = allowed.get(what);
          if (a == null) {
            problems.add("over the limit: " + what + " (" + size + ")");
          } else if (size > a.size()) {
            problems.add(
                "grew: " + what + " (" + size + ", was " + a.size() + "; " + a.owner() + ")");
          }
        });
    allowed.keySet().stream()
        .filter(what -> !found.containsKey(what))
        .forEach(what -> problems.add("fixed, delete it from BEING_FIXED: " + what));
    assertEquals(
        List.of(),
        problems,
        "main files over "
            + MAX_LINES
            + " lines, implementation packages over "
            + MAX_CLASSES
            + " classes; all of them: "
            + found);
  }

  @Test
  void aLongFileAndACrowdedPackageAreFound(@TempDir Path root) throws IOException {
    Path pkg = root.resolve("modules/x/src/main/java/io/vte/x/impl");
    Files.createDirectories(pkg);
    for (int i = 0; i <= MAX_CLASSES; i++) {
      Files.writeString(
          pkg.resolve("C" + i + ".java"), "package io.vte.x.impl;\nclass C" + i + "{}\n");
    }
    Files.writeString(pkg.resolve("package-info.java"), "package io.vte.x.impl;\n");
    Path api = root.resolve("modules/api/src/main/java/io/vte/api");
    Files.createDirectories(api);
    for (int i = 0; i <= MAX_CLASSES; i++) {
      Files.writeString(
          api.resolve("V" + i + ".java"), "package io.vte.api;\nrecord V" + i + "(){}\n");
    }
    Files.writeString(root.resolve("modules/x/src/main/java/io/vte/x/Long.java"), "\n".repeat(501));
    Files.writeString(root.resolve("modules/x/src/main/java/io/vte/x/Ok.java"), "\n".repeat(500));
    Path generated = root.resolve("modules/x/target/generated-sources/io/vte/x/Gen.java");
    Files.createDirectories(generated.getParent());
    Files.writeString(generated, "\n".repeat(5000));
    Files.createDirectories(root.resolve("native/src"));
    Files.writeString(root.resolve("native/src/shim.c"), "\n".repeat(600));

    assertEquals(
        Map.of(
            "io.vte.x.impl", MAX_CLASSES + 1,
            "modules/x/src/main/java/io/vte/x/Long.java", 501,
            "native/src/shim.c", 600),
        offenders(root));
  }

  /**
   * @param root the repository root
   * @return every main file over {@link #MAX_LINES} lines (by path) and implementation package over
   *     {@link #MAX_CLASSES} classes (by name), with its size
   */
  static Map<String, Integer> offenders(Path root) {
    Map<String, Integer> found = new TreeMap<>();
    Map<String, Integer> classes = new TreeMap<>();
    for (Path p : MainSources.under(root)) {
      int lines = MainSources.lines(root.resolve(p)).size();
      if (lines > MAX_LINES) {
        found.put(p.toString().replace('\\', '/'), lines);
      }
      if (p.toString().endsWith(".java") && !p.endsWith("package-info.java")) {
        classes.merge(MainSources.packageOf(p), 1, Integer::sum);
      }
    }
    classes.forEach(
        (pkg, n) -> {
          if (n > MAX_CLASSES && !VALUE_PACKAGES.contains(pkg)) {
            found.put(pkg, n);
          }
        });
    return found;
  }
}
