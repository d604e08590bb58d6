package io.vte.cli.figures;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs one {@code vte} command for {@link RegenerateFigures} and hands back what it printed. */
interface VteRunner {

  /**
   * @param args the command's arguments, e.g. {@code bench --json}
   * @return its standard output
   * @throws IllegalStateException when it does not exit 0, with its error output
   */
  String text(List<String> args);

  /**
   * @param args a command that prints one JSON object
   * @return the object (the last line of its output)
   */
  default JsonObject json(List<String> args) {
    List<String> lines = text(args).strip().lines().toList();
    return new JsonObject(lines.get(lines.size() - 1));
  }

  /**
   * @return a runner that starts each command in a JVM of its own, as {@code ./vte} does, on this
   *     JVM's class path
   */
  static VteRunner childJvm() {
    return args -> {
      List<String> command =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xmx256m",
                  "-XX:MaxDirectMemorySize=1g",
                  "-cp",
                  System.getProperty("java.class.path"),
                  "io.vte.cli.VteMain"));
      command.addAll(args);
      try {
        Path out = Files.createTempFile("vte-figures", ".out");
        Path err = Files.createTempFile("vte-figures", ".err");
        try {
          Process p =
              new ProcessBuilder(command)
                  .redirectOutput(out.toFile())
                  .redirectError(err.toFile())
                  .start();
          if (!p.waitFor(30, TimeUnit.MINUTES)) {
            p.destroyForcibly().waitFor();
            throw new IllegalStateException("vte " + String.join(" ", args) + " ran 30 minutes");
          }
          if (p.exitValue() != 0) {
            throw new IllegalStateException(
                "vte "
                    + String.join(" ", args)
                    + " exited "
                    + p.exitValue()
                    + ": "
                    + Files.readString(err).strip());
          }
          return Files.readString(out);
        } finally {
          Files.deleteIfExists(out);
          Files.deleteIfExists(err);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while vte ran", e);
      }
    };
  }
}
