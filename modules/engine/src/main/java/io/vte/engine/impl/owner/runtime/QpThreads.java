package io.vte.engine.impl.owner.runtime;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that run one context's QP create, modify and destroy for its owners ({@code QpJobs}):
 * off their event loops, since the move to RTR may wait for address resolution. A few daemon
 * threads {@code vte-qp-<device>-N}, so that one slow peer does not hold up the others' setups;
 * they start when there is work and idle ones end. {@link #close()} lets the jobs in flight finish
 * and returns once every thread has ended.
 */
public final class QpThreads implements Executor {

  /** The most threads running one context's QP verbs. */
  public static final int MAX_THREADS = 4;

  /** How long an idle thread lives. */
  private static final long KEEP_ALIVE_SECONDS = 1;

  /** How long close waits for QP verbs in flight (an RTR may wait about a second on RoCE). */
  private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final ThreadPoolExecutor pool;

  /** Every thread started and perhaps still alive (ended ones are pruned as new ones start). */
  private final Set<Thread> started = ConcurrentHashMap.newKeySet();

  /**
   * @param deviceName the device, named in the threads' names
   */
  public QpThreads(String deviceName) {
    AtomicInteger count = new AtomicInteger();
    this.pool =
        new ThreadPoolExecutor(
            MAX_THREADS,
            MAX_THREADS,
            KEEP_ALIVE_SECONDS,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            job -> {
              Thread t = new Thread(job, "vte-qp-" + deviceName + "-" + count.incrementAndGet());
              t.setDaemon(true);
              started.removeIf(old -> !old.isAlive());
              started.add(t);
              return t;
            });
    pool.allowCoreThreadTimeOut(true);
  }

  /**
   * Runs {@code job} on one of the threads.
   *
   * @throws java.util.concurrent.RejectedExecutionException once closed
   */
  @Override
  public void execute(Runnable job) {
    pool.execute(job);
  }

  /**
   * Takes no more jobs, lets those queued and running finish (bounded: past the bound the threads
   * are interrupted) and waits for every thread to end. Blocks: never on an event loop.
   */
  public void close() {
    pool.shutdown();
    long deadline = System.nanoTime() + DRAIN_NANOS;
    try {
      if (!pool.awaitTermination(DRAIN_NANOS, TimeUnit.NANOSECONDS)) {
        pool.shutdownNow();
      }
      for (Thread t : started) {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      }
    } catch (InterruptedException e) {
      pool.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
