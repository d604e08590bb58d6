package io.vte.engine.impl.notify;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.Notification;
import io.vte.engine.impl.notify.NotificationDispatcher.Arrival;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BlockedThreadGuard.class)
class NotificationDispatcherTest {

  private final Vertx vertx = Vertx.vertx();
  private final List<Notification> got = new CopyOnWriteArrayList<>();
  private final NotificationDispatcher dispatcher =
      new NotificationDispatcher(vertx.getOrCreateContext(), 1000, 60_000, 99);

  @AfterEach
  void close() {
    Await.result(vertx.close(), Duration.ofSeconds(10));
  }

  private static final long EPOCH = 10;

  private static Notification n(String from, long seq) {
    return new Notification(from, "t", Buffer.buffer("m" + seq), seq);
  }

  private static boolean accept(NotificationDispatcher d, Notification n) {
    return accept(d, n, EPOCH);
  }

  private static boolean accept(NotificationDispatcher d, Notification n, long epoch) {
    return d.accept(n, epoch) == Arrival.ACCEPTED;
  }

  @Test
  void shuffledArrivalsAreDeliveredInOrderPerSender() {
    dispatcher.handler(got::add);
    List<Notification> all = new ArrayList<>();
    for (long s = 2; s <= 300; s++) {
      all.add(n("a", s));
      all.add(n("b", s));
    }
    Collections.shuffle(all, new Random(7));
    // The first message of each sender starts its count; everything after it arrives shuffled.
    all.add(0, n("a", 1));
    all.add(1, n("b", 1));
    for (Notification x : all) {
      assertTrue(accept(dispatcher, x));
    }
    Await.untilEquals("all delivered", Duration.ofSeconds(10), 600, got::size);
    long a = 0;
    long b = 0;
    for (Notification x : got) {
      if (x.from().equals("a")) {
        assertEquals(++a, x.sequence());
      } else {
        assertEquals(++b, x.sequence());
      }
      assertEquals("m" + x.sequence(), x.payload().toString());
    }
  }

  @Test
  void concurrentSendersStayOrdered() throws Exception {
    dispatcher.handler(got::add);
    int senders = 4;
    CyclicBarrier barrier = new CyclicBarrier(senders);
    Thread[] threads = new Thread[senders];
    for (int t = 0; t < senders; t++) {
      String from = "s" + t;
      threads[t] =
          new Thread(
              () -> {
                try {
                  barrier.await();
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
                // After the first, pairs arrive swapped on purpose.
                accept(dispatcher, n(from, 1));
                for (long s = 2; s < 500; s += 2) {
                  accept(dispatcher, n(from, s + 1));
                  accept(dispatcher, n(from, s));
                }
              });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    Await.untilEquals("all delivered", Duration.ofSeconds(10), 4 * 499, got::size);
    long[] next = new long[senders];
    for (Notification x : got) {
      int i = x.from().charAt(1) - '0';
      assertEquals(++next[i], x.sequence(), "sender " + x.from());
    }
  }

  @Test
  void duplicatesAndBadSequencesAreRejected() {
    dispatcher.handler(got::add);
    assertEquals(Arrival.ACCEPTED, dispatcher.accept(n("a", 1), EPOCH));
    assertEquals(Arrival.DUPLICATE, dispatcher.accept(n("a", 1), EPOCH), "already delivered");
    assertEquals(Arrival.ACCEPTED, dispatcher.accept(n("a", 3), EPOCH));
    assertEquals(Arrival.DUPLICATE, dispatcher.accept(n("a", 3), EPOCH), "already waiting");
    assertEquals(Arrival.REFUSED, dispatcher.accept(n("a", 0), EPOCH));
    assertEquals(Arrival.ACCEPTED, dispatcher.accept(n("a", 2), EPOCH));
    assertEquals(Arrival.REFUSED, dispatcher.accept(n("a", 4), EPOCH - 1), "a dead incarnation");
    Await.untilEquals("three delivered", Duration.ofSeconds(10), 3, got::size);
    assertEquals(2, dispatcher.duplicatesDropped());
  }

  @Test
  void aGapLongerThanTheWindowIsSkipped() {
    NotificationDispatcher small =
        new NotificationDispatcher(vertx.getOrCreateContext(), 4, 60_000, 99);
    small.handler(got::add);
    assertTrue(accept(small, n("a", 1)));
    for (long s = 3; s <= 7; s++) {
      assertTrue(accept(small, n("a", s)));
    }
    Await.untilEquals("delivered after skipping 2", Duration.ofSeconds(10), 6, got::size);
    assertEquals(
        List.of(1L, 3L, 4L, 5L, 6L, 7L), got.stream().map(Notification::sequence).toList());
    assertFalse(accept(small, n("a", 2)), "the skipped one is late now");
  }

  @Test
  void aGapIsSkippedAfterItsTimeout() {
    NotificationDispatcher timed =
        new NotificationDispatcher(vertx.getOrCreateContext(), 1000, 100, 99);
    timed.handler(got::add);
    assertTrue(accept(timed, n("a", 1)));
    assertTrue(accept(timed, n("a", 3)));
    assertTrue(accept(timed, n("a", 4)));
    Await.untilEquals(
        "1, then 3 and 4 after the gap timeout", Duration.ofSeconds(10), 3, got::size);
    assertEquals(List.of(1L, 3L, 4L), got.stream().map(Notification::sequence).toList());
    assertTrue(accept(timed, n("a", 5)));
    Await.untilEquals("5 follows at once", Duration.ofSeconds(10), 4, got::size);
    timed.close();
  }

  @Test
  void aRestartedSenderStartsOverInItsNewEpochAndItsOldOneIsRefused() {
    dispatcher.handler(got::add);
    assertTrue(accept(dispatcher, n("a", 1), 10));
    assertTrue(accept(dispatcher, n("a", 2), 10));
    assertTrue(accept(dispatcher, n("a", 4), 10), "waits for 3");
    assertTrue(accept(dispatcher, n("a", 1), 20), "the restarted sender's first is no replay");
    assertTrue(accept(dispatcher, n("a", 2), 20));
    assertFalse(accept(dispatcher, n("a", 3), 10), "a dead incarnation's late message");
    Await.untilEquals("both incarnations heard", Duration.ofSeconds(10), 4, got::size);
    assertEquals(
        List.of(1L, 2L, 1L, 2L),
        got.stream().map(Notification::sequence).toList(),
        "the old incarnation's waiting 4 was dropped, never delivered");
  }

  @Test
  void aRestartedReceiverTakesUpASendersCountWithoutWaitingForTheGap() {
    dispatcher.handler(got::add);
    assertTrue(accept(dispatcher, n("a", 42), 10));
    assertTrue(accept(dispatcher, n("a", 43), 10));
    // The gap timeout is 60 s: delivery within the wait means nothing waited for 1..41.
    Await.untilEquals("delivered at once", Duration.ofSeconds(10), 2, got::size);
    assertEquals(List.of(42L, 43L), got.stream().map(Notification::sequence).toList());
    assertFalse(accept(dispatcher, n("a", 41), 10), "older than the count taken up");
  }

  @Test
  void epochsAreLaterForLaterStarts() {
    long first = NotificationDispatcher.newEpoch();
    Await.until(
        "the clock moves on",
        Duration.ofSeconds(10),
        () -> NotificationDispatcher.newEpoch() > first);
    assertEquals(99, dispatcher.epoch());
  }

  @Test
  void outgoingSequencesArePerPeerFromOne() {
    assertEquals(1, dispatcher.nextSequence("p"));
    assertEquals(2, dispatcher.nextSequence("p"));
    assertEquals(1, dispatcher.nextSequence("q"));
  }
}
