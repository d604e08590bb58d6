package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.Notification;
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
  private final NotificationDispatcher dispatcher = new NotificationDispatcher(vertx.getOrCreateContext(), 1000, 60_000);

  @AfterEach
  void close() {
    Await.result(vertx.close(), Duration.ofSeconds(10));
  }

  private static Notification n(String from, long seq) {
    return new Notification(from, "t", Buffer.buffer("m" + seq), seq);
  }

  @Test
  void shuffledArrivalsAreDeliveredInOrderPerSender() {
    dispatcher.handler(got::add);
    List<Notification> all = new ArrayList<>();
    for (long s = 1; s <= 300; s++) {
      all.add(n("a", s));
      all.add(n("b", s));
    }
    Collections.shuffle(all, new Random(7));
    for (Notification x : all) {
      assertTrue(dispatcher.accept(x));
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
      threads[t] = new Thread(() -> {
        try {
          barrier.await();
        } catch (Exception e) {
          throw new AssertionError(e);
        }
        // Two interleaved halves arrive out of order on purpose.
        for (long s = 1; s <= 500; s += 2) {
          dispatcher.accept(n(from, s + 1));
          dispatcher.accept(n(from, s));
        }
      });
      threads[t].start();
    }
    for (Thread t : threads) {
      t.join();
    }
    Await.untilEquals("all delivered", Duration.ofSeconds(10), 2000, got::size);
    long[] next = new long[senders];
    for (Notification x : got) {
      int i = x.from().charAt(1) - '0';
      assertEquals(++next[i], x.sequence(), "sender " + x.from());
    }
  }

  @Test
  void duplicatesAndBadSequencesAreRejected() {
    dispatcher.handler(got::add);
    assertTrue(dispatcher.accept(n("a", 1)));
    assertFalse(dispatcher.accept(n("a", 1)));
    assertTrue(dispatcher.accept(n("a", 3)));
    assertFalse(dispatcher.accept(n("a", 3)), "already waiting");
    assertFalse(dispatcher.accept(n("a", 0)));
    assertTrue(dispatcher.accept(n("a", 2)));
    Await.untilEquals("three delivered", Duration.ofSeconds(10), 3, got::size);
  }

  @Test
  void aGapLongerThanTheWindowIsSkipped() {
    NotificationDispatcher small = new NotificationDispatcher(vertx.getOrCreateContext(), 4, 60_000);
    small.handler(got::add);
    for (long s = 2; s <= 6; s++) {
      assertTrue(small.accept(n("a", s)));
    }
    Await.untilEquals("delivered after skipping 1", Duration.ofSeconds(10), 5, got::size);
    assertEquals(2, got.get(0).sequence());
    assertFalse(small.accept(n("a", 1)), "the skipped one is late now");
  }

  @Test
  void aGapIsSkippedAfterItsTimeout() {
    NotificationDispatcher timed = new NotificationDispatcher(vertx.getOrCreateContext(), 1000, 100);
    timed.handler(got::add);
    assertTrue(timed.accept(n("a", 1)));
    assertTrue(timed.accept(n("a", 3)));
    assertTrue(timed.accept(n("a", 4)));
    Await.untilEquals("1, then 3 and 4 after the gap timeout", Duration.ofSeconds(10), 3, got::size);
    assertEquals(List.of(1L, 3L, 4L), got.stream().map(Notification::sequence).toList());
    assertTrue(timed.accept(n("a", 5)));
    Await.untilEquals("5 follows at once", Duration.ofSeconds(10), 4, got::size);
    timed.close();
  }

  @Test
  void outgoingSequencesArePerPeerFromOne() {
    assertEquals(1, dispatcher.nextSequence("p"));
    assertEquals(2, dispatcher.nextSequence("p"));
    assertEquals(1, dispatcher.nextSequence("q"));
  }
}
