package io.vte.it.rxe;

import io.vte.it.HostScript;
import io.vte.testkit.Await;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Hosts with a real kernel verbs stack for tests: QEMU guests booted by {@code test/rxe/guests.sh}
 * (Debian's kernel, soft-RoCE {@code rxe<i>} on each rail NIC {@code eth<i>} = {@code
 * 198.18.<i>.<g+1>}), each running commands in its view of this host's root, so the JDK and this
 * test's class path run inside. Commands are jobs the guest's init picks up from the run directory
 * (shared writable with every guest at its own path): {@link #start} / {@link #exec}. Faults:
 * {@link #cable} (QEMU's {@code set_link}, from outside) and {@link #link} ({@code ip link set},
 * inside). {@link #close()} kills the guests; a shutdown hook does it too, and the script's watcher
 * does it when this JVM dies without either.
 */
public final class RxeGuests implements AutoCloseable {

  static final String SCRIPT_PROPERTY = "vte.it.rxeScript";
  private static final Duration UP = Duration.ofMinutes(6);
  private static final Duration SCRIPT = Duration.ofSeconds(60);
  private static final Pattern READY =
      Pattern.compile("guest=(\\d+) addresses=\\S+ boot_ms=(\\d+)");

  private final Path script;
  private final Path run;
  private final int guests;
  private final int nics;
  private final List<Long> bootMillis;
  private final long upMillis;
  private final String classPath;
  private final Path classArchive;
  private final Thread downOnExit;
  private final AtomicInteger jobs = new AtomicInteger();

  private RxeGuests(
      Path script, Path run, int guests, int nics, List<Long> bootMillis, long upMillis)
      throws IOException {
    this.script = script;
    this.run = run;
    this.guests = guests;
    this.nics = nics;
    this.bootMillis = List.copyOf(bootMillis);
    this.upMillis = upMillis;
    this.classPath = copyClassPath(run.resolve("cp"));
    this.classArchive = dumpClassArchive(run, classPath);
    this.downOnExit = new Thread(() -> down(script), "rxe-guests-down");
  }

  /**
   * Skips the calling test when guests cannot boot here, or fails it under CI.
   *
   * @throws AssertionError under {@code CI=true} when guests cannot boot
   */
  public static void assumeAvailable() {
    String reason;
    try {
      script(Duration.ofMinutes(3), "check");
      reason = null;
    } catch (IllegalStateException e) {
      reason = e.getMessage();
    }
    if (reason == null) {
      return;
    }
    if ("true".equalsIgnoreCase(System.getenv("CI"))) {
      throw new AssertionError("CI=true requires the rxe guest tests to run, but: " + reason);
    }
    Assumptions.abort("rxe guests unavailable: " + reason);
  }

  /**
   * Boots {@code n} guests with {@code k} rail NICs each (tearing down a set a killed run left).
   *
   * @param n guests
   * @param k rail NICs per guest
   * @param etcdPort the port on this host's 127.0.0.1 that a guest reaches at {@code
   *     198.19.0.100:2379}
   * @return the booted guests, ready for commands
   */
  public static RxeGuests up(int n, int k, int etcdPort) {
    assumeAvailable();
    long start = System.nanoTime();
    String out;
    Thread early = new Thread(() -> down(script()), "rxe-guests-down-early");
    Runtime.getRuntime().addShutdownHook(early);
    try {
      out =
          script(
              UP,
              Map.of("VTE_RXE_ETCD_PORT", Integer.toString(etcdPort)),
              "up",
              Integer.toString(n),
              Integer.toString(k));
    } catch (RuntimeException e) {
      down(script());
      throw e;
    } finally {
      Runtime.getRuntime().removeShutdownHook(early);
    }
    long upMillis = (System.nanoTime() - start) / 1_000_000;
    List<Long> boots = new ArrayList<>();
    for (String line : out.split("\n")) {
      Matcher m = READY.matcher(line.trim());
      if (m.matches()) {
        boots.add(Long.parseLong(m.group(2)));
      }
    }
    if (boots.size() != n) {
      down(script());
      throw new AssertionError("guests.sh up " + n + " " + k + " printed: " + out);
    }
    try {
      RxeGuests set =
          new RxeGuests(script(), Path.of(script(SCRIPT, "dir").trim()), n, k, boots, upMillis);
      Runtime.getRuntime().addShutdownHook(set.downOnExit);
      return set;
    } catch (IOException | RuntimeException e) {
      down(script());
      throw new IllegalStateException("guests booted, but: " + e, e);
    }
  }

  /**
   * @return each guest's time from power-on to running commands (its uptime when ready), ms
   */
  public List<Long> bootMillis() {
    return bootMillis;
  }

  /**
   * @return wall time of {@code guests.sh up} (kernel and initrd from the cache, all guests), ms
   */
  public long upMillis() {
    return upMillis;
  }

  /**
   * @return guests in the set
   */
  public int guests() {
    return guests;
  }

  /**
   * @return rail NICs per guest
   */
  public int nics() {
    return nics;
  }

  /**
   * @param guest guest index
   * @param nic rail
   * @return that NIC's address, {@code 198.18.<nic>.<guest+1>}
   */
  public static String address(int guest, int nic) {
    return "198.18." + nic + "." + (guest + 1);
  }

  /**
   * @return the run directory, shared writable with every guest at this same path
   */
  public Path runDir() {
    return run;
  }

  /**
   * Starts a shell command in a guest, in the background.
   *
   * @param guest where
   * @param name a name for logs (a number is added to make it unique)
   * @param shell the command, run by {@code /bin/sh} in the guest's view of the host's root
   * @return the running job
   * @throws IOException when the job cannot be written
   */
  public Job start(int guest, String name, String shell) throws IOException {
    if (guest < 0 || guest >= guests) {
      throw new IllegalArgumentException("no guest " + guest + " of " + guests);
    }
    String id = name.replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + jobs.incrementAndGet();
    Path jobs = run.resolve("g" + guest).resolve("jobs");
    Path dir = jobs.resolve(id);
    Files.createDirectories(dir);
    Path tmp = dir.resolve("cmd.tmp");
    Files.writeString(tmp, shell + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, jobs.resolve(id + ".cmd"), StandardCopyOption.ATOMIC_MOVE);
    return new Job(this, guest, id, dir, shell);
  }

  /**
   * Runs a shell command in a guest and waits for it.
   *
   * @param guest where
   * @param deadline how long it may take; then it is killed and this throws
   * @param shell the command
   * @return its output (stdout and stderr) and exit status
   * @throws Exception when it cannot start, or outlives its deadline
   */
  public Job.Result exec(int guest, Duration deadline, String shell) throws Exception {
    Job job = start(guest, shell.split("\\s+", 2)[0].replaceAll(".*/", ""), shell);
    return job.awaitExit(deadline);
  }

  /**
   * Runs a command that must succeed.
   *
   * @param guest where
   * @param deadline how long it may take
   * @param shell the command
   * @return its output
   * @throws Exception when it fails or outlives its deadline
   */
  public String ok(int guest, Duration deadline, String shell) throws Exception {
    Job.Result r = exec(guest, deadline, shell);
    if (r.status() != 0) {
      throw new AssertionError(
          "guest " + guest + ": `" + shell + "` exited " + r.status() + ": " + r.output());
    }
    return r.output();
  }

  /**
   * A Java main class of this test's class path as a guest's shell command.
   *
   * @param jvmOptions options before the class, e.g. {@code -Dx=y}
   * @param mainClass the main class
   * @param args its arguments
   * @return the command line, quoted for {@code sh}
   */
  public String java(List<String> jvmOptions, String mainClass, List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // Under TCG a JIT's second tier costs more than it gives in a short run.
    cmd.addAll(
        List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classPath));
    if (classArchive != null) {
      cmd.add("-XX:SharedArchiveFile=" + classArchive);
    }
    cmd.addAll(jvmOptions);
    cmd.add(mainClass);
    cmd.addAll(args);
    StringBuilder b = new StringBuilder("exec");
    for (String c : cmd) {
      b.append(' ').append(quote(c));
    }
    return b.toString();
  }

  static String quote(String s) {
    return "'" + s.replace("'", "'\\''") + "'";
  }

  /**
   * Pulls or plugs a guest's rail NIC from outside, as a cable: QEMU's monitor {@code set_link}.
   *
   * @param guest which guest
   * @param nic rail
   * @param up plugged or pulled
   */
  public void cable(int guest, int nic, boolean up) {
    script(SCRIPT, "cable", Integer.toString(guest), Integer.toString(nic), up ? "up" : "down");
  }

  /**
   * Sets a guest's rail NIC up or down from inside ({@code ip link set eth<nic>}).
   *
   * @param guest which guest
   * @param nic rail
   * @param up the new state
   * @throws Exception when the command fails
   */
  public void link(int guest, int nic, boolean up) throws Exception {
    ok(guest, SCRIPT, "ip link set eth" + nic + (up ? " up" : " down"));
  }

  /** Kills every guest of the set and removes its run directory. */
  @Override
  public void close() {
    try {
      Runtime.getRuntime().removeShutdownHook(downOnExit);
    } catch (IllegalStateException exiting) {
      // the hook runs anyway
    }
    down(script);
  }

  private static void down(Path script) {
    try {
      script(SCRIPT, "down");
    } catch (RuntimeException e) {
      System.err.println("guests.sh down failed: " + e.getMessage());
    }
  }

  /**
   * This test's class path for the guests: the project's own jars copied into the run directory
   * (visible in every guest; another build may re-install them in the local repository meanwhile)
   * and class directories packed as jars there, so that a class-data-sharing archive can cover it.
   */
  private static String copyClassPath(Path dir) throws IOException {
    Files.createDirectories(dir);
    List<String> entries = new ArrayList<>();
    int packed = 0;
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(e).toAbsolutePath();
      if (Files.isDirectory(p)) {
        Path jar = dir.resolve("classes-" + packed++ + ".jar");
        packDirectory(p, jar);
        entries.add(jar.toString());
      } else if (p.toString().contains("/io/vte/") && p.toString().endsWith(".jar")) {
        Path copy = dir.resolve(p.getFileName());
        Files.copy(p, copy, StandardCopyOption.REPLACE_EXISTING);
        entries.add(copy.toString());
      } else if (p.startsWith("/tmp/")) {
        // a guest has its own /tmp
        throw new IOException("class path entry under /tmp is not visible in a guest: " + p);
      } else {
        entries.add(p.toString());
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static void packDirectory(Path root, Path jar) throws IOException {
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
        Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        out.putNextEntry(
            new JarEntry(root.relativize(f).toString().replace(File.separatorChar, '/')));
        Files.copy(f, out);
        out.closeEntry();
      }
    }
  }

  /**
   * Dumps a class-data-sharing archive of the classes a short embedded {@code vte bench} loads, on
   * this host, for the guests' JVMs: under TCG, loading and verifying classes is most of a JVM's
   * start, and the archive takes a third off it.
   *
   * @return the archive, or null when the JVM could not make one (the guests then start without)
   */
  private static Path dumpClassArchive(Path run, String classPath) {
    Path archive = run.resolve("cp").resolve("vte.jsa");
    try {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-XX:ArchiveClassesAtExit=" + archive,
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  classPath,
                  "io.vte.cli.VteMain",
                  "bench",
                  "--duration",
                  "1",
                  "--warmup",
                  "0",
                  "--json",
                  "--no-progress")
              .redirectErrorStream(true)
              .redirectOutput(run.resolve("cp").resolve("archive.log").toFile())
              .start();
      if (!p.waitFor(2, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        return null;
      }
      return Files.isReadable(archive) ? archive : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  static Path script() {
    return HostScript.locate(SCRIPT_PROPERTY, "rxe/guests.sh");
  }

  /** Runs {@code guests.sh ARGS}; a non-zero exit throws with its stderr as the message. */
  private static String script(Duration deadline, String... args) {
    return script(deadline, Map.of(), args);
  }

  private static String script(Duration deadline, Map<String, String> env, String... args) {
    Map<String, String> all = new HashMap<>(env);
    // The script's watcher tears the set down when this JVM is gone (even after a SIGKILL).
    all.put("VTE_RXE_OWNER_PID", Long.toString(ProcessHandle.current().pid()));
    return HostScript.run(script(), deadline, all, args);
  }

  /** A command running in a guest: its output grows in a file of the run directory. */
  public static final class Job {

    /**
     * @param status the exit status (128 + signal when killed)
     * @param output stdout and stderr, merged
     */
    public record Result(int status, String output) {}

    private final RxeGuests set;
    private final int guest;
    private final String id;
    private final Path dir;
    private final String shell;

    private Job(RxeGuests set, int guest, String id, Path dir, String shell) {
      this.set = set;
      this.guest = guest;
      this.id = id;
      this.dir = dir;
      this.shell = shell;
    }

    /**
     * @return what it printed so far
     */
    public String output() {
      try {
        return Files.readString(dir.resolve("out"), StandardCharsets.UTF_8);
      } catch (NoSuchFileException notYet) {
        return "";
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    /**
     * @return the exit status, or null while it runs
     */
    public Integer status() {
      try {
        return Integer.valueOf(Files.readString(dir.resolve("rc")).trim());
      } catch (NoSuchFileException running) {
        return null;
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }

    /**
     * Waits for its end; after the deadline kills it and fails.
     *
     * @param deadline how long
     * @return its status and output
     * @throws Exception when it outlives the deadline
     */
    public Result awaitExit(Duration deadline) throws Exception {
      try {
        Await.until(this + " to end", deadline, () -> status() != null);
      } catch (AssertionError timeout) {
        kill();
        throw new AssertionError(timeout.getMessage() + "; its output: " + output(), timeout);
      }
      return new Result(status(), output());
    }

    /**
     * Waits for a line of its output that matches.
     *
     * @param line the pattern a whole line must match
     * @param deadline how long
     * @return the match
     */
    public Matcher awaitLine(Pattern line, Duration deadline) {
      Matcher[] found = new Matcher[1];
      Await.until(
          this + " to print a line matching " + line + " (so far: " + tail() + ")",
          deadline,
          () -> {
            for (String l : output().split("\n")) {
              Matcher m = line.matcher(l);
              if (m.matches()) {
                found[0] = m;
                return true;
              }
            }
            if (status() != null) {
              throw new AssertionError(this + " ended with " + status() + ": " + output());
            }
            return false;
          });
      return found[0];
    }

    private String tail() {
      String o = output();
      return o.length() > 2000 ? "..." + o.substring(o.length() - 2000) : o;
    }

    /**
     * Sends a signal to its process group.
     *
     * @param signal e.g. {@code KILL}, {@code TERM}
     * @throws Exception when the signal cannot be sent
     */
    public void signal(String signal) throws Exception {
      if (status() != null) {
        return;
      }
      String pid = Files.readString(dir.resolve("pid")).trim();
      set.exec(
          guest,
          SCRIPT,
          "kill -" + signal + " -" + pid + " 2>/dev/null || kill -" + signal + " " + pid);
    }

    /** Kills it (SIGKILL to its process group) if it still runs; errors are only logged. */
    public void kill() {
      try {
        signal("KILL");
      } catch (Exception e) {
        System.err.println("cannot kill " + this + ": " + e);
      }
    }

    @Override
    public String toString() {
      return "guest "
          + guest
          + " job "
          + id
          + " `"
          + (shell.length() > 120 ? shell.substring(0, 120) + "..." : shell)
          + "`";
    }
  }
}
