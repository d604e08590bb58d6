package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.LinePump;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A peer engine in a child JVM on this test's class path, driven by lines: its stdout is read on a
 * thread of its own, its stdin takes commands.
 */
final class PeerProcess {

  private final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

  /**
   * @param mainClass the peer's main class
   * @param args its arguments
   */
  PeerProcess(Class<?> mainClass, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx256m");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(mainClass.getName());
    command.addAll(List.of(args));
    process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    LinePump.start(process.getInputStream(), lines::add, "peer-stdout");
    stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
  }

  /**
   * @return the process
   */
  Process process() {
    return process;
  }

  /** Ends the process (SIGTERM) and waits for it. */
  void end() throws InterruptedException {
    process.destroy();
    assertTrue(process.waitFor(30, TimeUnit.SECONDS), "peer process exits");
  }

  /** Sends one command line. */
  void send(String line) throws IOException {
    stdin.write(line + "\n");
    stdin.flush();
  }

  /**
   * @param prefix what the awaited line starts with (earlier lines are skipped)
   * @param deadline how long to wait
   * @return the line
   */
  String expect(String prefix, Duration deadline) throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    while (System.nanoTime() < end) {
      String line = lines.poll(end - System.nanoTime(), TimeUnit.NANOSECONDS);
      assertNotNull(line, "peer said nothing starting with " + prefix);
      if (line.startsWith(prefix)) {
        return line;
      }
    }
    throw new AssertionError("no '" + prefix + "' from the peer within " + deadline);
  }
}
