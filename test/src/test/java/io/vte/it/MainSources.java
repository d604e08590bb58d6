package io.vte.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The hand-written main code of the repository: every {@code src/main/java} tree under {@code
 * modules/} and {@code examples/}, and the JNI shim's C sources ({@code native/src}). Generated
 * code lives in build directories ({@code target/}) and is never listed.
 */
final class MainSources {

  private MainSources() {}

  /**
   * @param root the repository root
   * @return every main source file, as paths relative to {@code root}, sorted
   */
  static List<Path> under(Path root) {
    try (Stream<Path> files =
        Stream.of("modules", "examples", "native/src")
            .map(root::resolve)
            .filter(Files::isDirectory)
            .flatMap(MainSources::walk)) {
      return files
          .filter(Files::isRegularFile)
          .map(root::relativize)
          .filter(MainSources::isMain)
          .sorted()
          .toList();
    }
  }

  /**
   * @param relative a path relative to the repository root
   * @return the Java package of a main Java source ({@code a.b} for {@code
   *     .../src/main/java/a/b/X.java})
   */
  static String packageOf(Path relative) {
    String s = relative.getParent().toString().replace('\\', '/');
    return s.substring(s.indexOf("/src/main/java/") + "/src/main/java/".length()).replace('/', '.');
  }

  /**
   * @param relative a path relative to the repository root
   * @return the module directory it belongs to ({@code modules/engine}, {@code examples/kv-cache})
   */
  static String moduleOf(Path relative) {
    return relative.getName(0) + "/" + relative.getName(1);
  }

  /**
   * @param file a file
   * @return its lines
   */
  static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean isMain(Path relative) {
    String s = relative.toString().replace('\\', '/');
    if (s.contains("/target/") || s.startsWith("target/")) {
      return false;
    }
    if (s.startsWith("native/src/")) {
      return s.endsWith(".c") || s.endsWith(".h");
    }
    return s.contains("/src/main/java/") && s.endsWith(".java");
  }

  private static Stream<Path> walk(Path dir) {
    try {
      return Files.walk(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
