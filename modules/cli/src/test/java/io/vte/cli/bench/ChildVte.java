package io.vte.cli.bench;

import io.vte.testkit.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The {@code vte} command in a child JVM with this test's class path; its output is collected as it comes. */
final class ChildVte implements AutoCloseable {

  private final Process process;
  private final List<String> out = new ArrayList<>();
  private final List<String> err = new ArrayList<>();
  private final List<Thread> pumps = new ArrayList<>();

  private static String classPath;

  ChildVte(String... args) throws IOException {
    // SIGINT back to its default: a child of a background job inherits it ignored, and the JVM then never sees it
    List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=INT", Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:MaxDirectMemorySize=1g", "-cp", classPath(), "io.vte.cli.VteMain"));
    cmd.addAll(List.of(args));
    process = new ProcessBuilder(cmd).start();
    pump(process.getInputStream(), out, "out");
    pump(process.getErrorStream(), err, "err");
  }

  /**
   * This test's class path, with the sibling modules' jars copied once: other engineers re-install them in the
   * local repository while tests run, and a child must not open a half-written jar.
   */
  private static synchronized String classPath() throws IOException {
    if (classPath == null) {
      Path dir = java.nio.file.Files.createTempDirectory("vte-child-cp");
      dir.toFile().deleteOnExit();
      List<String> entries = new ArrayList<>();
      for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
        Path p = Path.of(e);
        if (p.toString().contains("/io/vte/") && p.toString().endsWith(".jar")) {
          Path copy = dir.resolve(p.getFileName());
          java.nio.file.Files.copy(p, copy);
          copy.toFile().deleteOnExit();
          entries.add(copy.toString());
        } else {
          entries.add(e);
        }
      }
      classPath = String.join(java.io.File.pathSeparator, entries);
    }
    return classPath;
  }

  private void pump(InputStream in, List<String> lines, String name) {
    Thread t = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          synchronized (lines) {
            lines.add(line);
          }
        }
      } catch (IOException e) {
        // the child went away: what was read stays
      }
    }, "child-" + name);
    t.setDaemon(true);
    t.start();
    pumps.add(t);
  }

  List<String> out() {
    synchronized (out) {
      return List.copyOf(out);
    }
  }

  List<String> err() {
    synchronized (err) {
      return List.copyOf(err);
    }
  }

  /** Waits for the first stdout line. */
  String firstLine(Duration deadline) {
    Await.until("a line from the child (stderr so far: " + err() + ")", deadline,
        () -> !out().isEmpty() || !process.isAlive());
    return out().isEmpty() ? null : out().get(0);
  }

  /** Waits for the exit and for its output to be read. */
  int exitCode(Duration deadline) throws InterruptedException {
    if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the child did not exit within " + deadline + "; stderr: " + err());
    }
    for (Thread t : pumps) {
      t.join(10_000);
    }
    return process.exitValue();
  }

  /** SIGINT (as Ctrl-C sends). */
  void interrupt() throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -INT " + process.pid() + " failed");
    }
  }

  /** SIGTERM (as {@code kill} sends). */
  void terminate() {
    process.destroy();
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
    }
  }
}
