package io.vte.mooncake;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of Mooncake's example binaries in a child process, its log (glog to stderr) kept in memory
 * and in {@code target/mooncake-logs/}; lines are awaited with deadlines; {@link #close()} kills
 * it.
 */
final class MooncakeProcess implements AutoCloseable {

  private final Process process;
  private final List<String> lines = new ArrayList<>();
  private final Thread pump;

  private MooncakeProcess(Process process, Path log) {
    this.process = process;
    this.pump =
        new Thread(
            () -> {
              try (BufferedReader in =
                      new BufferedReader(new InputStreamReader(process.getInputStream()));
                  PrintWriter out = new PrintWriter(Files.newBufferedWriter(log))) {
                for (String line; (line = in.readLine()) != null; ) {
                  out.println(line);
                  synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                  }
                }
              } catch (IOException e) {
                // The process ended.
              }
            },
            "mooncake-log-" + log.getFileName());
    pump.setDaemon(true);
    pump.start();
  }

  /** Starts {@code binary} with {@code args} and extra environment {@code env}. */
  static MooncakeProcess start(String binary, Map<String, String> env, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(MooncakeBinaries.binary(binary).toString());
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("LD_LIBRARY_PATH", MooncakeBinaries.home().resolve("lib").toString());
    pb.environment().put("GLOG_logtostderr", "1");
    pb.environment().put("MC_FORCE_TCP", "1");
    pb.environment().putAll(env);
    Path dir = Path.of("target/mooncake-logs");
    Files.createDirectories(dir);
    Path log = dir.resolve(binary + "-" + System.nanoTime() + ".log");
    return new MooncakeProcess(pb.start(), log);
  }

  /**
   * @return the first match of {@code pattern} in the output, awaited up to {@code deadline}
   */
  Matcher awaitLine(Pattern pattern, Duration deadline) throws InterruptedException {
    long end = System.nanoTime() + deadline.toNanos();
    int seen = 0;
    synchronized (lines) {
      while (true) {
        for (; seen < lines.size(); seen++) {
          Matcher m = pattern.matcher(lines.get(seen));
          if (m.find()) {
            return m;
          }
        }
        long left = end - System.nanoTime();
        if (left <= 0) {
          throw new AssertionError(
              "no line matching " + pattern + " within " + deadline + "; output:\n" + output());
        }
        lines.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      }
    }
  }

  /**
   * @return the exit code, awaited up to {@code deadline}
   */
  int awaitExit(Duration deadline) throws InterruptedException {
    if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new AssertionError("still running after " + deadline + "; output:\n" + output());
    }
    pump.join(TimeUnit.SECONDS.toMillis(10));
    return process.exitValue();
  }

  /**
   * @return the last lines of output
   */
  String output() {
    synchronized (lines) {
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }
  }

  /** Ends the process: SIGTERM, then SIGKILL after 5 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
