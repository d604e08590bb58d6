package io.vte.it;

import io.vertx.core.VertxOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Which threads of a JVM may grow during a soak, and how far: the pools of a Vert.x instance that
 * start their threads lazily up to a fixed size. The worker pool is the one seen growing (issue
 * 44): it is a fixed-size {@code ThreadPoolExecutor} (core = max = {@code workerPoolSize}, default
 * 20) that starts a new thread for each task it is given until it holds that many, idle ones or
 * not, and the engine gives it a task per descriptor change (the metadata store lives on a worker
 * context, and every port event changes the descriptor), per register and per close. Event loops
 * and the internal blocking pool start theirs lazily too, up to {@code eventLoopPoolSize} and
 * {@code internalBlockingPoolSize}.
 *
 * <p>Every other kind of thread (by {@link ThreadCensus} name) must not gain a single thread
 * between warm-up and the end; a pool's bound counts once per Vert.x instance alive (each has one
 * {@value #INSTANCE_THREAD} thread, which is itself counted exactly).
 *
 * @param perInstance the bound of each lazily growing pool, by folded thread name
 */
public record ThreadBounds(Map<String, Integer> perInstance) {

  /**
   * Folded names starting so are an engine's QP-verb threads, {@code vte-qp-<device>-#}: a pool per
   * opened device that starts threads when QPs are made, connected or destroyed and ends them when
   * idle, up to {@value #QP_THREADS_PER_DEVICE} (the engine's {@code QpThreads.MAX_THREADS}).
   */
  public static final String QP_THREADS = "vte-qp-";

  /** The most QP-verb threads of one device. */
  public static final int QP_THREADS_PER_DEVICE = 4;

  /** The thread every Vert.x instance has exactly one of. */
  public static final String INSTANCE_THREAD = "vertx-blocked-thread-checker";

  /** Keeps an unmodifiable copy. */
  public ThreadBounds {
    perInstance = Map.copyOf(perInstance);
  }

  /**
   * @param options the options the JVM's Vert.x instances were made with
   * @return the bounds of their lazily growing pools
   */
  public static ThreadBounds of(VertxOptions options) {
    return new ThreadBounds(
        Map.of(
            "vert.x-eventloop-thread-#", options.getEventLoopPoolSize(),
            "vert.x-worker-thread-#", options.getWorkerPoolSize(),
            "vert.x-internal-blocking-#", options.getInternalBlockingPoolSize()));
  }

  /**
   * @param warm the census after warm-up
   * @param end the census at the end
   * @return one line per kind of thread that grew beyond these rules ({@code name: before ->
   *     after}, with the bound for a pool); empty when the threads stayed flat
   */
  public List<String> excess(ThreadCensus warm, ThreadCensus end) {
    int instances = Math.max(1, end.count(INSTANCE_THREAD));
    List<String> excess = new ArrayList<>();
    TreeSet<String> names = new TreeSet<>(warm.counts().keySet());
    names.addAll(end.counts().keySet());
    for (String name : names) {
      int before = warm.count(name);
      int after = end.count(name);
      Integer bound = perInstance.get(name);
      if (bound == null && name.startsWith(QP_THREADS)) {
        bound = QP_THREADS_PER_DEVICE;
      }
      if (bound == null && after > before) {
        excess.add(name + ": " + before + " -> " + after);
      } else if (bound != null && after > bound * instances) {
        excess.add(
            name + ": " + before + " -> " + after + " (bound " + bound + " x " + instances + ")");
      }
    }
    return excess;
  }
}
