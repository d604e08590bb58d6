package io.vte.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The bash scripts that build and tear down test hosts (network namespaces, QEMU guests), run from
 * Java: found through a system property, run with a deadline, their standard output returned and a
 * failure thrown with their standard error as its message.
 */
public final class HostScript {

  private HostScript() {}

  /**
   * @param property the system property that names the script
   * @param defaultPath where it is when the property is not set
   * @return the script's path
   * @throws AssertionError naming the path and the property when it is not readable
   */
  public static Path locate(String property, String defaultPath) {
    Path p = Path.of(System.getProperty(property, defaultPath));
    if (!Files.isReadable(p)) {
      throw new AssertionError(
          p.getFileName()
              + " not found at "
              + p.toAbsolutePath()
              + " (system property "
              + property
              + ")");
    }
    return p;
  }

  /**
   * Runs {@code bash SCRIPT ARGS}.
   *
   * @param script the script
   * @param deadline how long it may take; past it, it is killed
   * @param env variables added to its environment
   * @param args its arguments
   * @return its standard output
   * @throws IllegalStateException on a non-zero exit (its standard error, without the script's
   *     name, as the message), past the deadline, or when it cannot be started
   */
  public static String run(
      Path script, Duration deadline, Map<String, String> env, String... args) {
    List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    try {
      Path err = Files.createTempFile("vte-host-script-", ".err");
      try {
        Process p = pb.redirectError(err.toFile()).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException(
              String.join(" ", cmd) + " did not finish within " + deadline);
        }
        if (p.exitValue() != 0) {
          String message = Files.readString(err, StandardCharsets.UTF_8).trim();
          String prefix = script.getFileName() + ": ";
          throw new IllegalStateException(
              message.startsWith(prefix) ? message.substring(prefix.length()) : message);
        }
        return new String(out, StandardCharsets.UTF_8);
      } finally {
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + cmd + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + cmd, e);
    }
  }
}
