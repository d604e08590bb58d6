package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PostStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Async events and completion-channel notifications through the shim's threads. */
@Tag("fake")
class FakeEventsTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  private FakeRig rig;

  @BeforeEach
  void open() {
    FakeIbverbs.reset();
    rig = new FakeRig();
  }

  @AfterEach
  void close() {
    rig.close();
    FakeIbverbs.assertNothingLive();
    assertEquals(
        0, FakeIbverbs.count("cq_destroyed_unacked"), "a CQ was destroyed with unacked events");
  }

  @Test
  void asyncEventsAreDrainedMappedAndEachAckedExactlyOnce() {
    ConcurrentLinkedQueue<AsyncEvent> seen = new ConcurrentLinkedQueue<>();
    rig.context.setAsyncEventHandler(seen::add);
    AsyncEventType[] types = {
      AsyncEventType.QP_FATAL,
      AsyncEventType.PORT_ERR,
      AsyncEventType.PORT_ACTIVE,
      AsyncEventType.CQ_ERR,
      AsyncEventType.DEVICE_FATAL,
      AsyncEventType.COMM_EST,
      AsyncEventType.GID_CHANGE
    };
    int total = 350;
    List<AsyncEventType> pushed = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      AsyncEventType t = types[i % types.length];
      int arg =
          switch (t) {
            case QP_FATAL, COMM_EST -> rig.qp.qpNum();
            case CQ_ERR -> 0;
            default -> 1;
          };
      assertTrue(FakeIbverbs.pushAsyncEvent(t.code(), arg));
      pushed.add(t);
    }
    Await.until("all async events delivered", DEADLINE, () -> seen.size() == total);
    assertEquals(total, FakeIbverbs.count("async_delivered"));
    assertEquals(total, FakeIbverbs.count("async_acked"));
    assertEquals(0, FakeIbverbs.count("async_bad_acks"));
    assertEquals(0, FakeIbverbs.count("async_pending"));
    List<AsyncEvent> events = new ArrayList<>(seen);
    for (int i = 0; i < total; i++) {
      AsyncEvent e = events.get(i);
      assertEquals(pushed.get(i), e.type(), "in order");
      assertEquals("fake_mlx5_0", e.deviceName());
      switch (e.type()) {
        case QP_FATAL, COMM_EST -> {
          assertEquals(rig.qp.qpNum(), e.qpNum());
          assertEquals(-1, e.port());
        }
        case CQ_ERR -> assertSame(rig.cq, e.cq());
        case DEVICE_FATAL -> {
          assertEquals(-1, e.qpNum());
          assertEquals(-1, e.port());
          assertNull(e.cq());
        }
        default -> {
          assertEquals(1, e.port());
          assertEquals(-1, e.qpNum());
        }
      }
    }
  }

  @Test
  void eventsAreAckedWithoutAHandlerAndAFailingHandlerDoesNotStopTheThread() {
    for (int i = 0; i < 10; i++) {
      FakeIbverbs.pushAsyncEvent(AsyncEventType.PORT_ERR.code(), 1);
    }
    Await.until(
        "events acked with no handler", DEADLINE, () -> FakeIbverbs.count("async_acked") == 10);
    AtomicInteger calls = new AtomicInteger();
    rig.context.setAsyncEventHandler(
        e -> {
          calls.incrementAndGet();
          throw new IllegalStateException("handler bug");
        });
    for (int i = 0; i < 5; i++) {
      FakeIbverbs.pushAsyncEvent(AsyncEventType.PORT_ACTIVE.code(), 1);
    }
    Await.until("every event reaches the failing handler", DEADLINE, () -> calls.get() == 5);
    assertEquals(15, FakeIbverbs.count("async_acked"));
    assertEquals(0, FakeIbverbs.count("async_bad_acks"));
  }

  @Test
  void anEventTypeNewerThanVteIsAckedAndSkippedWithoutStoppingTheThread() {
    ConcurrentLinkedQueue<AsyncEvent> seen = new ConcurrentLinkedQueue<>();
    rig.context.setAsyncEventHandler(seen::add);
    FakeIbverbs.pushAsyncEvent(19, 0);
    FakeIbverbs.pushAsyncEvent(AsyncEventType.PORT_ACTIVE.code(), 1);
    Await.until("the known event after the unknown one", DEADLINE, () -> seen.size() == 1);
    assertEquals(AsyncEventType.PORT_ACTIVE, seen.peek().type());
    assertEquals(2, FakeIbverbs.count("async_acked"));
    FakeIbverbs.pushAsyncEvent(AsyncEventType.PORT_ERR.code(), 1);
    Await.until("the thread keeps running", DEADLINE, () -> seen.size() == 2);
  }

  @Test
  void armedCqNotifiesOncePerCompletionAndAcksInBatches() {
    AtomicInteger notified = new AtomicInteger();
    List<CompletionQueue> sources = new ArrayList<>();
    rig.cq.setNotificationHandler(
        cq -> {
          synchronized (sources) {
            sources.add(cq);
          }
          notified.incrementAndGet();
        });
    int rounds = 40;
    for (int i = 0; i < rounds; i++) {
      assertEquals(PostStatus.OK, rig.cq.requestNotify());
      FakeIbverbs.pushCompletion(0, i, 0, 1, 8, rig.qp.qpNum(), 0, 0, 0);
      int expected = i + 1;
      Await.until("notification " + expected, DEADLINE, () -> notified.get() == expected);
    }
    synchronized (sources) {
      assertTrue(sources.stream().allMatch(s -> s == rig.cq));
    }
    assertEquals(rounds, FakeIbverbs.lines("ibv_req_notify_cq").size());
    List<String> acks = FakeIbverbs.lines("ibv_ack_cq_events");
    assertEquals(
        List.of("ibv_ack_cq_events ordinal=0 n=16", "ibv_ack_cq_events ordinal=0 n=16"), acks);
    rig.qp.close();
    rig.cq.close();
    assertTrue(
        FakeIbverbs.log()
            .contains("ibv_ack_cq_events ordinal=0 n=8\nibv_destroy_cq ordinal=0 unacked=0"),
        FakeIbverbs.log());
  }

  @Test
  void closingACqRacingItsNotificationNeverLeavesAnEventUnacked() {
    for (int i = 0; i < 60; i++) {
      CompletionQueue cq = rig.context.createCq(8);
      int ordinal = i + 1;
      AtomicInteger notified = new AtomicInteger();
      cq.setNotificationHandler(c -> notified.incrementAndGet());
      cq.requestNotify();
      FakeIbverbs.pushCompletion(ordinal, i, 0, 1, 8, 0, 0, 0, 0);
      cq.close();
    }
    assertEquals(0, FakeIbverbs.count("cq_destroyed_unacked"));
  }
}
