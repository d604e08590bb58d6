package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.testkit.ResourceSnapshot;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortState;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WcStatus;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A NIC thread whose loop fails unexpectedly leaves a dead device on which no work waits forever:
 * what was outstanding and what is posted later completes, flushed. A user's handler that throws,
 * even an {@link Error}, does not make the loop fail.
 */
class NicCrashTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  @Test
  void aCrashedNicFlushesWhatWasOutstandingAndWhatIsPostedLaterAndCloseReleasesEverything() {
    // the first fabric of a JVM opens a unix socket below VTE that stays open for the JVM's life
    new Fabric(2).close();
    ResourceSnapshot before = ResourceSnapshot.take();
    try (Fabric f = new Fabric(2)) {
      List<AsyncEvent> events = new CopyOnWriteArrayList<>();
      f.ctx(0).setAsyncEventHandler(events::add);
      int n = 32;
      CompletionQueue cq = f.ctx(0).createCq(2 * n);
      QueuePair a = f.pair(cq, n, Fabric.FAST).a();
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      // every frame is held far beyond the test: all n writes are outstanding when the NIC crashes
      f.provider.faults().delayFrames("soft0", 1.0, Duration.ofSeconds(60).toNanos(), 1);
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(n, src, dst, 64)));
      f.provider.faults().crashNic("soft0");
      assertAllFlushedOnce(Fabric.await(cq, n, DEADLINE), n);
      Await.until(
          "DEVICE_FATAL",
          DEADLINE,
          () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.DEVICE_FATAL));
      assertEquals(QpState.ERR, a.state());
      assertEquals(PortState.DOWN, f.ctx(0).queryPort(1).state());
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(2, src, dst, 64)));
      assertAllFlushedOnce(Fabric.await(cq, 2, DEADLINE), 2);
      Fabric.assertQuiet(cq, Duration.ofMillis(50));
      assertEquals(
          1,
          events.stream().filter(e -> e.type() == AsyncEventType.DEVICE_FATAL).count(),
          events.toString());
    }
    ResourceSnapshot.assertNoLeaksSince(before, DEADLINE);
  }

  @Test
  void handlersThatThrowErrorsLeaveTheNicRunning() {
    try (Fabric f = new Fabric(2)) {
      List<AsyncEvent> events = new CopyOnWriteArrayList<>();
      f.ctx(0)
          .setAsyncEventHandler(
              e -> {
                events.add(e);
                throw new AssertionError("the async event handler fails on " + e.type());
              });
      f.provider.faults().portDown("soft0", 1);
      f.provider.faults().portUp("soft0", 1);
      Await.until(
          "PORT_ACTIVE after the handler failed on PORT_ERR",
          DEADLINE,
          () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ACTIVE));
      CompletionQueue cq = f.ctx(0).createCq(16);
      AtomicInteger notified = new AtomicInteger();
      cq.setNotificationHandler(
          c -> {
            notified.incrementAndGet();
            throw new StackOverflowError("the completion handler fails");
          });
      QueuePair a = f.pair(cq, 8, Fabric.FAST).a();
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      for (int round = 1; round <= 3; round++) {
        assertEquals(PostStatus.OK, cq.requestNotify());
        assertEquals(PostStatus.OK, a.postSend(Fabric.writes(1, src, dst, 64)));
        int expected = round;
        Await.until("notification " + round, DEADLINE, () -> notified.get() == expected);
        assertEquals(WcStatus.SUCCESS.code(), Fabric.await(cq, 1, DEADLINE).get(0).status());
      }
      assertEquals(PortState.ACTIVE, f.ctx(0).queryPort(1).state());
      assertTrue(
          events.stream().noneMatch(e -> e.type() == AsyncEventType.DEVICE_FATAL),
          events.toString());
    }
  }

  private static void assertAllFlushedOnce(List<Fabric.Wc> wcs, int n) {
    Set<Long> ids = new HashSet<>();
    for (Fabric.Wc wc : wcs) {
      assertTrue(ids.add(wc.wrId()), "completed twice: " + wc);
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wc.status(), wc.toString());
    }
    assertEquals(n, ids.size());
  }
}
