package io.vte.testkit;

import java.io.File;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A snapshot of the process's live threads and open file descriptors, to prove that closing
 * something left nothing behind. Compare with {@link #assertNoLeaksSince(ResourceSnapshot,
 * java.time.Duration)}, which waits (with a deadline) for threads that are already exiting.
 */
public final class ResourceSnapshot {

  private final Set<String> threads;
  private final int fds;

  private ResourceSnapshot(Set<String> threads, int fds) {
    this.threads = threads;
    this.fds = fds;
  }

  /**
   * @return the current state
   */
  public static ResourceSnapshot take() {
    Set<String> names =
        Thread.getAllStackTraces().keySet().stream()
            .filter(Thread::isAlive)
            .map(t -> t.getName() + "#" + t.getId())
            .collect(Collectors.toCollection(TreeSet::new));
    return new ResourceSnapshot(names, openFds());
  }

  /**
   * @return live thread names (with ids)
   */
  public Set<String> threads() {
    return threads;
  }

  /**
   * @return open file descriptors, or -1 where /proc/self/fd is unavailable
   */
  public int fileDescriptors() {
    return fds;
  }

  /**
   * Asserts that no thread and no file descriptor was added since {@code before}, waiting up to
   * {@code deadline} for them to go.
   *
   * @param before the baseline
   * @param deadline how long threads and sockets may take to finish closing
   */
  public static void assertNoLeaksSince(ResourceSnapshot before, java.time.Duration deadline) {
    try {
      Await.until(
          "threads and file descriptors back to baseline",
          deadline,
          () -> {
            ResourceSnapshot now = take();
            return newThreads(before, now).isEmpty() && (before.fds < 0 || now.fds <= before.fds);
          });
    } catch (AssertionError e) {
      ResourceSnapshot now = take();
      throw new AssertionError(
          e.getMessage()
              + ": new threads "
              + newThreads(before, now)
              + ", fds "
              + before.fds
              + " -> "
              + now.fds);
    }
  }

  private static Set<String> newThreads(ResourceSnapshot before, ResourceSnapshot now) {
    Set<String> added = new TreeSet<>(now.threads);
    added.removeAll(before.threads);
    // JVM-managed helpers that come and go on their own are not ours. Nor are the threads a live
    // Vert.x worker pool
    // starts on demand up to its fixed size: how many it has depends on how tasks overlapped in
    // time (the flake hunt
    // saw 4 grow to 20 beside a CPU hog); a Vert.x instance left open still shows through its event
    // loops and its
    // blocked-thread checker.
    added.removeIf(
        n ->
            n.startsWith("Attach Listener")
                || n.startsWith("process reaper")
                || n.startsWith("surefire")
                || n.startsWith("Common-Cleaner")
                || n.startsWith("ForkJoinPool.commonPool")
                || n.startsWith("vert.x-worker-thread-"));
    return added;
  }

  private static int openFds() {
    String[] entries = new File("/proc/self/fd").list();
    return entries == null ? -1 : entries.length;
  }
}
