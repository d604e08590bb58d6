package io.vte.cli.scale;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One scale run with every host a process of its own: host {@code h} is a {@link ScaleNode} JVM
 * inside network namespace {@code <netns>-h<h>}, as {@code test/hosts.sh up H K} makes them (rail
 * NIC {@code i} at {@code 198.18.<i>.<h+1>}, the management NIC at {@code 198.19.0.<h+1>} for the
 * handshake server), with its segment in etcd. The run drives every host through the same steps as
 * {@link ScaleRun} (first transfers to every peer at once, the all-to-all window, idle) and reads
 * each host's own figures from its process, so per-host memory, threads and sockets are real, not a
 * JVM's total divided by its hosts. Run it where etcd and the namespaces are reachable: in the
 * set's service namespace ({@code ip netns exec <netns>-svc vte scale --netns <netns> ...}).
 */
final class NetnsScaleRun {

  /** Heap of each host's JVM: small, so that 32 of them fit in memory. */
  static final String NODE_HEAP = "-Xmx256m";

  /** Each host's handshake server port; its rail NIC i listens on {@code RPC_PORT + 1 + i}. */
  static final int RPC_PORT = 7470;

  private static final Duration START_DEADLINE = Duration.ofSeconds(300);
  private static final Duration STEP_DEADLINE = Duration.ofSeconds(180);

  private final ScaleSettings settings;
  private final int hosts;
  private final String netns;
  private final Path logs;
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, String> causes = new TreeMap<>();
  private final Duration stagger;
  private StormRow stormRow;

  /**
   * @param settings the knobs (the metadata must be etcd)
   * @param hosts how many hosts
   * @param netns the namespace set's prefix
   * @param logs directory for each host's standard error ({@code h<h>.log})
   * @param stagger null for no storm; else the run ends with staggered crash restarts ({@link
   *     #storm()}), host h starting again {@code h x stagger} after all were killed
   */
  NetnsScaleRun(ScaleSettings settings, int hosts, String netns, Path logs, Duration stagger) {
    this.settings = settings;
    this.hosts = hosts;
    this.netns = netns;
    this.logs = logs;
    this.stagger = stagger;
  }

  /**
   * @return the staggered restart's figures, or null when the run had none
   */
  StormRow storm() {
    return stormRow;
  }

  /**
   * @return the first message of each cause of a failed transfer (by host), for the report
   */
  Map<String, String> failureCauses() {
    return causes;
  }

  /**
   * Runs it.
   *
   * @return the figures, each per-host figure the mean over the hosts' processes
   * @throws Exception when a host does not start or a step passes its deadline
   */
  ScaleRow run() throws Exception {
    String prefix = "/vte/scale-netns-" + hosts + "-" + System.currentTimeMillis();
    Files.createDirectories(logs);
    try (EtcdCounter etcd = EtcdCounter.open(settings.metadataUri(), prefix)) {
      for (int h = 0; h < hosts; h++) {
        nodes.add(Node.start(command(h, prefix, false), logs.resolve("h" + h + ".log")));
      }
      all("ready", null, settings.scaled(START_DEADLINE));
      long stormStart = System.nanoTime();
      List<long[]> first = all("first", "first", settings.scaled(STEP_DEADLINE));
      double stormSeconds = (System.nanoTime() - stormStart) / 1e9;
      Histogram latencies = new Histogram(1, TimeUnit.MINUTES.toNanos(2), 3);
      long failed = 0;
      for (long[] f : first) {
        failed += f[0];
        for (int i = 1; i < f.length; i++) {
          latencies.recordValue(Math.min(latencies.getHighestTrackableValue(), f[i]));
        }
      }
      long windowMs = settings.window().toMillis();
      long bytes = 0;
      List<long[]> window = all("window " + windowMs, "window", settings.scaled(STEP_DEADLINE));
      for (long[] w : window) {
        bytes += w[0];
        failed += w[1];
      }
      List<long[]> busy = all("snap", "snap", settings.scaled(STEP_DEADLINE));
      // the connections close after idleConnectionMs; the NIC checks every 100 ms
      LockSupport.parkNanos(settings.idle().toNanos() + TimeUnit.MILLISECONDS.toNanos(1500));
      List<long[]> idle = all("snap", "snap", settings.scaled(STEP_DEADLINE));
      if (stagger != null) {
        stormRow = staggeredRestart(prefix);
      }
      return new ScaleRow(
          hosts,
          settings.nics(),
          mean(busy, 0),
          mean(busy, 1),
          mean(busy, 2),
          mean(idle, 2),
          mean(busy, 3),
          mean(idle, 3),
          mean(busy, 4),
          mean(busy, 5),
          latencies.getValueAtPercentile(50) / 1000.0,
          latencies.getValueAtPercentile(99) / 1000.0,
          mean(busy, 6) * hosts / stormSeconds,
          etcd.keys(),
          etcd.events(),
          bytes * 1e9 / settings.window().toNanos() / (1 << 20) / hosts,
          failed);
    } finally {
      // all at once: a host left waiting for its peers' quit would hold the others' close up
      for (Node n : nodes) {
        n.send("quit");
      }
      for (Node n : nodes) {
        n.quit();
      }
    }
  }

  /**
   * Staggered crash restarts: every host's JVM is killed at once (its etcd lease outlives it, so
   * its descriptor stays in etcd until the new one replaces it), then host h's JVM starts again
   * {@code h x stagger} later on the same addresses and ports and, as soon as it is up, opens every
   * peer's segment and writes to it. A peer not up yet refuses the handshake (nothing listens on
   * its port) and the engine tries again after its backoff. Then every host opens every peer and
   * writes again, and the all-to-all window runs: the transfers after the storm.
   */
  private StormRow staggeredRestart(String prefix) throws Exception {
    long start = System.nanoTime();
    for (Node n : nodes) {
      n.kill();
    }
    nodes.clear();
    for (int h = 0; h < hosts; h++) {
      LockSupport.parkNanos(start + h * stagger.toNanos() - System.nanoTime());
      nodes.add(Node.start(command(h, prefix, true), logs.resolve("h" + h + "-restarted.log")));
    }
    all("ready", null, settings.scaled(START_DEADLINE));
    long failedInMesh = 0;
    for (long[] f : all("first", null, settings.scaled(STEP_DEADLINE))) {
      failedInMesh += f[0];
    }
    double meshMillis = (System.nanoTime() - start) / 1e6;
    long failedAfter = 0;
    for (long[] f : all("first", "first", settings.scaled(STEP_DEADLINE))) {
      failedAfter += f[0];
    }
    for (long[] w :
        all("window " + settings.window().toMillis(), "window", settings.scaled(STEP_DEADLINE))) {
      failedAfter += w[1];
    }
    List<long[]> after = all("snap", "snap", settings.scaled(STEP_DEADLINE));
    return new StormRow(
        hosts,
        meshMillis,
        sum(after, 6),
        sum(after, 7),
        sum(after, 8),
        sum(after, 9) / 1e6,
        sum(after, 10),
        failedInMesh,
        failedAfter);
  }

  private static long sum(List<long[]> answers, int field) {
    return answers.stream().mapToLong(a -> a[field]).sum();
  }

  private static double mean(List<long[]> answers, int field) {
    return answers.stream().mapToLong(a -> a[field]).average().orElse(0);
  }

  /**
   * Sends {@code command} to every host at once, then waits for each one's answer {@code answer};
   * with {@code answer} null sends nothing and waits for the line {@code command} (the ready line).
   *
   * @return each host's numbers, in host order
   */
  private List<long[]> all(String command, String answer, Duration deadline) {
    if (answer != null) {
      for (Node n : nodes) {
        n.send(command);
      }
    }
    long end = System.nanoTime() + deadline.toNanos();
    List<long[]> out = new ArrayList<>();
    for (int h = 0; h < nodes.size(); h++) {
      String[] words = nodes.get(h).await(answer == null ? command : answer, end, h);
      // the numbers, then (first, window) the failure causes
      int firstCause = 1;
      while (firstCause < words.length && words[firstCause].matches("-?\\d+")) {
        firstCause++;
      }
      long[] numbers = new long[firstCause - 1];
      for (int i = 1; i < firstCause; i++) {
        numbers[i - 1] = Long.parseLong(words[i]);
      }
      if (firstCause < words.length && !words[firstCause].equals("{}")) {
        causes.put(
            "host " + h, String.join(" ", Arrays.asList(words).subList(firstCause, words.length)));
      }
      out.add(numbers);
    }
    return out;
  }

  private List<String> command(int h, String prefix, boolean firstOnReady) {
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < settings.nics(); i++) {
      devices.add("h" + h + "n" + i + "@198.18." + i + "." + (h + 1) + ":" + (RPC_PORT + 1 + i));
    }
    // at this process's priority: hosts niced below it starved beside any other load (a restarted
    // host's JVM needed over 30 s to reach etcd beside a CPU hog)
    return List.of(
        "ip",
        "netns",
        "exec",
        netns + "-h" + h,
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        NODE_HEAP,
        "-XX:+UseSerialGC",
        "-cp",
        System.getProperty("java.class.path"),
        ScaleNode.class.getName(),
        "host=" + h,
        "hosts=" + hosts,
        "devices=" + String.join(",", devices),
        "rpcHost=198.19.0." + (h + 1),
        "rpcPort=" + RPC_PORT,
        "firstOnReady=" + firstOnReady,
        "metadata=" + settings.metadataUri(),
        "prefix=" + prefix,
        "workers=" + settings.workers(),
        "size=" + settings.requestBytes(),
        "batch=" + settings.batch(),
        "idleMs=" + settings.idle().toMillis(),
        "timeScale=" + settings.timeScale(),
        "handshakesInFlight=" + settings.handshakesInFlight());
  }

  /** A host's process: its command pipe and the protocol lines it answered. */
  private static final class Node {

    private final Process process;
    private final PrintWriter in;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path log;

    private Node(Process process, Path log) {
      this.process = process;
      this.log = log;
      this.in =
          new PrintWriter(
              new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
      Thread reader =
          new Thread(
              () -> {
                try (var r = process.inputReader(StandardCharsets.UTF_8)) {
                  for (String l = r.readLine(); l != null; l = r.readLine()) {
                    if (l.startsWith("vte-scale ")) {
                      lines.add(l.substring("vte-scale ".length()));
                    }
                  }
                } catch (IOException e) {
                  // the process ended; await reports it
                }
              },
              "scale-node-reader");
      reader.setDaemon(true);
      reader.start();
    }

    static Node start(List<String> command, Path log) throws IOException {
      Process p =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.to(log.toFile()))
              .start();
      return new Node(p, log);
    }

    void send(String command) {
      in.println(command);
    }

    String[] await(String expected, long end, int h) {
      try {
        while (true) {
          String line = lines.poll(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
          if (line == null) {
            throw new IllegalStateException(
                String.format(
                    Locale.ROOT,
                    "host %d did not answer '%s' in time (alive %s; its log: %s)",
                    h,
                    expected,
                    process.isAlive(),
                    log));
          }
          String[] words = line.split(" ");
          if (words[0].equals(expected)) {
            return words;
          }
          if (words[0].equals("error")) {
            throw new IllegalStateException("host " + h + ": " + line + " (its log: " + log + ")");
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted waiting for host " + h, e);
      }
    }

    /** Kills the JVM at once (SIGKILL: no close, its etcd lease stays until it expires). */
    void kill() throws InterruptedException {
      process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    /** Asks it to quit (once more, harmless) and waits for it, killing it after 30 s. */
    void quit() {
      in.println("quit");
      in.close();
      try {
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
