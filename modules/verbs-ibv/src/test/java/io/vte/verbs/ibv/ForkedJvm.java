package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a main class of this module's tests in a fresh JVM (the shim loads once per JVM) with a
 * chosen {@code LD_LIBRARY_PATH}, and returns what it printed.
 */
final class ForkedJvm {

  private ForkedJvm() {}

  /**
   * @param libraryPath the {@code LD_LIBRARY_PATH} of the child
   * @param properties {@code -D} arguments, e.g. {@code "-Dx=y"}
   * @param main the main class
   * @param args its arguments
   * @return stdout and stderr, after the child exited 0 within 60 s
   * @throws Exception when the child cannot be started or waited for
   */
  static String run(Path libraryPath, List<String> properties, Class<?> main, String... args)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(properties);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().put("LD_LIBRARY_PATH", libraryPath.toString());
    pb.redirectErrorStream(true);
    Process p = pb.start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "forked JVM did not finish");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), out);
    return out;
  }
}
