package io.vte.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A main class in a child JVM on the calling test's class path, optionally through a launcher (e.g.
 * {@code ip netns exec NS}, which must exec what follows: {@code env}, which execs the JVM, so this
 * process is the child's); its stdout and stderr lines are collected as they come. {@link #close()}
 * kills it if it still runs.
 */
public class ChildJvm implements AutoCloseable {

  private static String classPath;

  private final Process process;
  private final List<String> out = new ArrayList<>();
  private final List<String> err = new ArrayList<>();
  private final List<Thread> pumps = new ArrayList<>();

  /**
   * Starts the child.
   *
   * @param launcher the command the JVM's command line is appended to; empty for none
   * @param mainClass the main class, on this test's class path
   * @param args its arguments
   * @throws IOException when the process cannot start
   */
  public ChildJvm(List<String> launcher, String mainClass, List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>(launcher);
    // SIGINT back to its default: a child of a background job inherits it ignored, and the JVM then
    // never sees it
    cmd.addAll(
        List.of(
            "env",
            "--default-signal=INT",
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-XX:MaxDirectMemorySize=1g",
            "-cp",
            classPath(),
            mainClass));
    cmd.addAll(args);
    process = new ProcessBuilder(cmd).start();
    process.getOutputStream().close();
    pump(process.getInputStream(), out, "out");
    pump(process.getErrorStream(), err, "err");
  }

  /**
   * This test's class path, with the project's own jars copied once: other builds may re-install
   * them in the local repository while tests run, and a child must not open a half-written jar.
   */
  private static synchronized String classPath() throws IOException {
    if (classPath == null) {
      Path dir = Files.createTempDirectory("vte-child-cp");
      dir.toFile().deleteOnExit();
      List<String> entries = new ArrayList<>();
      for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
        Path p = Path.of(e);
        if (p.toString().contains("/io/vte/") && p.toString().endsWith(".jar")) {
          Path copy = dir.resolve(p.getFileName());
          Files.copy(p, copy);
          copy.toFile().deleteOnExit();
          entries.add(copy.toString());
        } else {
          entries.add(e);
        }
      }
      classPath = String.join(File.pathSeparator, entries);
    }
    return classPath;
  }

  private void pump(InputStream in, List<String> lines, String name) {
    pumps.add(
        LinePump.start(
            in,
            line -> {
              synchronized (lines) {
                lines.add(line);
              }
            },
            "child-" + process.pid() + "-" + name));
  }

  /**
   * @return the stdout lines so far
   */
  public List<String> out() {
    synchronized (out) {
      return List.copyOf(out);
    }
  }

  /**
   * @return the stderr lines so far
   */
  public List<String> err() {
    synchronized (err) {
      return List.copyOf(err);
    }
  }

  /**
   * @return the OS process
   */
  public Process process() {
    return process;
  }

  /**
   * Waits for the first stdout line.
   *
   * @param deadline how long to wait
   * @return the line, or null when the child exited without printing one
   * @throws AssertionError when the deadline passes first
   */
  public String firstLine(Duration deadline) {
    Await.until(
        "a line from the child (stderr so far: " + err() + ")",
        deadline,
        () -> !out().isEmpty() || !process.isAlive());
    return out().isEmpty() ? null : out().get(0);
  }

  /**
   * Waits for the exit and for its output to be read.
   *
   * @param deadline how long to wait
   * @return the exit code
   * @throws AssertionError when the child does not exit in time (it is killed)
   * @throws InterruptedException when interrupted
   */
  public int exitCode(Duration deadline) throws InterruptedException {
    if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "the child did not exit within "
              + deadline
              + "; stdout: "
              + out()
              + "; stderr: "
              + err());
    }
    for (Thread t : pumps) {
      t.join(10_000);
    }
    return process.exitValue();
  }

  /**
   * Sends SIGINT (as Ctrl-C does).
   *
   * @throws IOException when {@code kill} cannot run
   * @throws InterruptedException when interrupted
   */
  public void interrupt() throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new AssertionError("kill -INT " + process.pid() + " failed");
    }
  }

  /**
   * Sends SIGTERM (as {@code kill} does), leaving the child's output pipes open: {@code
   * Process.destroy()} closes them, and the lines a child prints as it stops (a partial report)
   * were lost to the pumps.
   */
  public void terminate() {
    process.toHandle().destroy();
  }

  /** Kills the child if it still runs and waits for it. */
  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroyForcibly();
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted while waiting for child " + process.pid() + " to die", e);
      }
    }
  }
}
