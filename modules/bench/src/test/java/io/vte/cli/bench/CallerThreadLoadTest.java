package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.TransferOpcode;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A load from plain caller threads ({@link LoadGenerator.Plan#callerThreads()}): the batches are
 * submitted outside Vert.x by threads of the generator's own, every READ block is checked, and the
 * threads are gone once the run has reported.
 */
@ExtendWith(BlockedThreadGuard.class)
class CallerThreadLoadTest {

  private static final String PREFIX = "vte-bench-caller-";

  @Test
  void callerThreadsKeepTheirBatchesInFlightAndEveryReadBlockIsChecked() throws Exception {
    LoadGenerator.Plan plan =
        new LoadGenerator.Plan(TransferOpcode.READ, 16384, 2, 3, 2, true, false, true);
    try (LoopbackBench bench = LoopbackBench.open("ct", plan, false)) {
      Set<String> seen = ConcurrentHashMap.newKeySet();
      Thread watcher =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  callerThreads().forEach(t -> seen.add(t.getName()));
                  LockSupport.parkNanos(1_000_000);
                }
              },
              "caller-thread-watcher");
      watcher.setDaemon(true);
      watcher.start();
      BenchResult r;
      try {
        r =
            bench.session.measure(
                plan, Duration.ofMillis(100), Duration.ofMillis(400), List.of(), null, false);
      } finally {
        watcher.interrupt();
        watcher.join(10_000);
      }
      assertEquals(0, r.failed(), r.failures().toString());
      assertTrue(r.ops() > 0 && r.ops() % 2 == 0, "whole batches of 2: " + r.ops());
      assertEquals(Boolean.TRUE, r.verified(), r.verifyDetail());
      assertEquals(r.ops() / 2, r.latency().getTotalCount(), "one latency sample per batch");
      assertEquals(
          Set.of(PREFIX + "0", PREFIX + "1"), seen, "each submitter ran on a thread of its own");
      Await.until(
          "the caller threads have ended", Duration.ofSeconds(10), () -> callerThreads().isEmpty());
    }
  }

  private static List<Thread> callerThreads() {
    ThreadGroup root = Thread.currentThread().getThreadGroup();
    while (root.getParent() != null) {
      root = root.getParent();
    }
    Thread[] all = new Thread[root.activeCount() * 2 + 16];
    int n = root.enumerate(all, true);
    return Arrays.stream(all, 0, n)
        .filter(t -> t.getName().startsWith(PREFIX) && t.isAlive())
        .toList();
  }
}
