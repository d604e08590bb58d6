package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The soak's rule for threads: kinds counted exactly, Vert.x's lazily growing pools bounded. */
class ThreadBoundsTest {

  private static final String WORKERS = "vert.x-worker-thread-#";
  private static final ThreadBounds BOUNDS = ThreadBounds.of(new VertxOptions());

  @Test
  void aThreadsNumberIsFoldedSoItCountsWithItsPool() {
    assertEquals("pool-3-thread-#", ThreadCensus.fold("pool-3-thread-7"));
    assertEquals("vert.x-worker-thread-#", ThreadCensus.fold("vert.x-worker-thread-12"));
    assertEquals("vte-soft-nic-mixd#", ThreadCensus.fold("vte-soft-nic-mixd3"));
    assertEquals("process reaper (pid #)", ThreadCensus.fold("process reaper (pid 4711)"));
    assertEquals("main", ThreadCensus.fold("main"));
  }

  @Test
  void aThreadLeftRunningIsNamedWithItsCountsBeforeAndAfter() throws Exception {
    ThreadCensus before = ThreadCensus.take();
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> leaked = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Thread t = new Thread(() -> awaitQuietly(release), "census-probe-" + i);
      t.start();
      leaked.add(t);
    }
    try {
      ThreadCensus after = ThreadCensus.take();
      assertEquals(3, after.count("census-probe-#"));
      assertEquals(List.of("census-probe-#: 0 -> 3"), BOUNDS.excess(before, after));
      assertEquals(after, ThreadCensus.fromJson(after.toJson()), "the census survives JSON");
    } finally {
      release.countDown();
      for (Thread t : leaked) {
        t.join();
      }
    }
  }

  @Test
  void aPoolMayGrowToItsBoundButNotBeyondAndEveryOtherKindNotAtAll() {
    ThreadCensus warm = census(12, 1, Map.of("pool-3-thread-#", 2, "main", 1));
    assertEquals(
        List.of(), BOUNDS.excess(warm, census(20, 1, Map.of("pool-3-thread-#", 2, "main", 1))));
    assertEquals(
        List.of(),
        BOUNDS.excess(warm, census(12, 1, Map.of("pool-3-thread-#", 1))),
        "fewer is flat");
    assertEquals(
        List.of("pool-3-thread-#: 2 -> 3", WORKERS + ": 12 -> 21 (bound 20 x 1)"),
        BOUNDS.excess(warm, census(21, 1, Map.of("pool-3-thread-#", 3, "main", 1))));
    assertEquals(
        List.of(ThreadBounds.INSTANCE_THREAD + ": 1 -> 2"),
        BOUNDS.excess(warm, census(40, 2, Map.of("pool-3-thread-#", 2, "main", 1))),
        "a second Vert.x instance brings a second pool, but is itself a thread that appeared");
  }

  @Test
  void aDevicesQpThreadsComeAndGoWithinTheirBound() {
    String qp = ThreadCensus.fold("vte-qp-mix0-17");
    assertEquals("vte-qp-mix0-#", qp);
    ThreadCensus warm = census(12, 1, Map.of());
    assertEquals(
        List.of(),
        BOUNDS.excess(warm, census(12, 1, Map.of(qp, ThreadBounds.QP_THREADS_PER_DEVICE))));
    assertEquals(
        List.of(qp + ": 0 -> 5 (bound 4 x 1)"), BOUNDS.excess(warm, census(12, 1, Map.of(qp, 5))));
  }

  /**
   * Why the worker pool grows while the soak runs: each task given to a pool below its size starts
   * a thread, although the earlier ones are idle; at its size it starts no more; close ends them.
   */
  @Test
  void vertxsWorkerPoolStartsAThreadPerTaskUntilFullThenNoMoreAndCloseEndsThem() {
    int size = 3;
    ThreadCensus before = ThreadCensus.take();
    Vertx vertx = Vertx.vertx(new VertxOptions().setWorkerPoolSize(size));
    try {
      for (int task = 1; task <= 10; task++) {
        Await.result(vertx.executeBlocking(() -> null), LocalEngines.WAIT);
        assertEquals(
            before.count(WORKERS) + Math.min(task, size),
            ThreadCensus.take().count(WORKERS),
            "worker threads after " + task + " sequential tasks");
      }
    } finally {
      Await.result(vertx.close(), LocalEngines.WAIT);
    }
    Await.until(
        "the worker threads to end after close",
        Duration.ofSeconds(10),
        () -> ThreadCensus.take().count(WORKERS) == before.count(WORKERS));
  }

  private static ThreadCensus census(int workers, int instances, Map<String, Integer> others) {
    Map<String, Integer> counts = new HashMap<>(others);
    counts.put(WORKERS, workers);
    counts.put(ThreadBounds.INSTANCE_THREAD, instances);
    return new ThreadCensus(counts);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
