package io.vte.engine.impl.segment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The descriptor publisher against a store whose puts end when the test says: one put in flight,
 * always the newest descriptor, and a caller told only when a put that includes its change ended.
 */
@ExtendWith(BlockedThreadGuard.class)
class DescriptorPublisherTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final Vertx vertx = Vertx.vertx();
  private final Context context = vertx.getOrCreateContext();
  private final AtomicLong version = new AtomicLong(1);

  /** Puts started, in order, each with the promise that ends it. */
  private final List<Put> puts = new CopyOnWriteArrayList<>();

  private record Put(SegmentDescriptor descriptor, Promise<Void> end) {}

  private final DescriptorPublisher publisher =
      new DescriptorPublisher(
          context,
          version::get,
          () -> SegmentDescriptor.newBuilder().setName("s").setVersion(version.get()).build(),
          d -> {
            Promise<Void> end = Promise.promise();
            puts.add(new Put(d, end));
            return end.future();
          });

  @AfterEach
  void close() {
    Await.result(vertx.close(), WAIT);
  }

  private Future<Void> change() {
    version.incrementAndGet();
    return publisher.published();
  }

  /** Waits until the publisher's context ran everything queued on it so far. */
  private void drain() {
    Promise<Void> done = Promise.promise();
    context.runOnContext(v -> done.complete());
    Await.result(done.future(), WAIT);
  }

  private void awaitPuts(int n) {
    Await.until(n + " put(s) started", WAIT, () -> puts.size() >= n);
  }

  @Test
  void changesDuringAPutGoOutTogetherInTheNextPutWithTheNewestDescriptor() {
    Future<Void> first = change();
    awaitPuts(1);
    List<Future<Void>> later = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      later.add(change());
    }
    // the five changes are queued behind the put in flight: no second put yet
    Future<Void> probe = publisher.published();
    drain();
    assertEquals(1, puts.size(), "one put in flight at a time");
    assertFalse(first.isComplete(), "told before its put ended");

    puts.get(0).end().complete();
    Await.result(first, WAIT);
    awaitPuts(2);
    drain();
    assertEquals(
        version.get(),
        puts.get(1).descriptor().getVersion(),
        "the second put carries the newest descriptor");
    later.forEach(f -> assertFalse(f.isComplete(), "a change is told only when its put ended"));
    assertFalse(probe.isComplete());

    puts.get(1).end().complete();
    later.forEach(f -> Await.result(f, WAIT));
    Await.result(probe, WAIT);
    Await.result(publisher.published(), WAIT);
    drain();
    assertEquals(2, puts.size(), "nothing changed since: no third put");
  }

  @Test
  void concurrentChangesFromManyThreadsAreAllCoveredByPutsThatNeverOverlap() throws Exception {
    int threads = 8;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Future<Void>> told = new CopyOnWriteArrayList<>();
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread th =
          new Thread(
              () -> {
                try {
                  start.await();
                  for (int i = 0; i < 50; i++) {
                    told.add(change());
                  }
                } catch (Exception e) {
                  throw new AssertionError(e);
                }
              });
      th.start();
      all.add(th);
    }
    for (Thread th : all) {
      th.join(WAIT.toMillis());
    }
    // end every put as it comes; each must start only after the one before ended
    long lastVersion = 0;
    for (int i = 0; ; i++) {
      if (told.stream().allMatch(Future::isComplete) && i == puts.size()) {
        break;
      }
      awaitPuts(i + 1);
      drain();
      assertEquals(i + 1, puts.size(), "a put started while another was in flight");
      long v = puts.get(i).descriptor().getVersion();
      assertTrue(v > lastVersion, "put " + i + " is newer than the one before");
      lastVersion = v;
      puts.get(i).end().complete();
      int ended = i + 1;
      Await.until(
          "put " + ended + " acted on",
          WAIT,
          () -> puts.size() > ended || told.stream().allMatch(Future::isComplete));
    }
    told.forEach(f -> assertTrue(f.succeeded()));
    assertEquals(version.get(), lastVersion, "the last put is the newest descriptor");
  }

  @Test
  void aFailedPutFailsItsWaitersAndTheNextCallPutsAgain() {
    Future<Void> first = change();
    awaitPuts(1);
    VteException away = new VteException(ErrorCode.METADATA_UNAVAILABLE, "etcd away");
    puts.get(0).end().fail(away);
    assertEquals(away, Await.failure(first, WAIT));

    Future<Void> again = publisher.published();
    awaitPuts(2);
    assertEquals(puts.get(0).descriptor().getVersion(), puts.get(1).descriptor().getVersion());
    puts.get(1).end().complete();
    Await.result(again, WAIT);
  }

  @Test
  void closeWaitsForThePutInFlightAndStartsNoOther() {
    Future<Void> first = change();
    awaitPuts(1);
    Future<Void> queued = change();
    Future<Void> closed = publisher.close();
    VteException e = (VteException) Await.failure(queued, WAIT);
    assertEquals(ErrorCode.ENGINE_CLOSED, e.code());
    assertFalse(closed.isComplete(), "close returned while a put was in flight");

    puts.get(0).end().complete();
    Await.result(closed, WAIT);
    Await.result(first, WAIT);
    Throwable late = Await.failure(change(), WAIT);
    assertEquals(ErrorCode.ENGINE_CLOSED, ((VteException) late).code());
    assertEquals(1, puts.size(), "no put after close");
  }
}
