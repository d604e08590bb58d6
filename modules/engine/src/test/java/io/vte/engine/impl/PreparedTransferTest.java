package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.submit.PreparedBatch;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Prepared transfers ({@code TransferEngine.prepare}): posts move exact bytes on reused records,
 * bad input fails at prepare with the submit's typed errors, overlapping posts run as ordinary
 * submits, and a post that was cancelled, timed out or failed leaves its records to its stragglers
 * while the next post runs exactly on fresh ones.
 */
@ExtendWith(BlockedThreadGuard.class)
class PreparedTransferTest {

  /** A small request, one of a slice, and one cut into 4 slices of the default 64 KiB. */
  private static final long[] SIZES = {4096, 65536, 4 * 65536 - 100};

  private static final long TOTAL = SIZES[0] + SIZES[1] + SIZES[2];

  private StallableEnginePair pair;

  @BeforeEach
  void start() {
    pair = new StallableEnginePair(TOTAL);
  }

  @AfterEach
  void close() {
    pair.close();
  }

  private List<TransferRequest> writes() {
    List<TransferRequest> list = new ArrayList<>();
    long off = 0;
    for (long s : SIZES) {
      list.add(
          TransferRequest.write(pair.local, off, pair.segment, pair.remote.address() + off, s));
      off += s;
    }
    return list;
  }

  private PreparedBatch prepare(TransferOptions options) {
    return (PreparedBatch) Await.result(pair.a.prepare(writes(), options), WAIT);
  }

  /** Fills the source with pattern {@code seed}, so a post that moved nothing leaves a mismatch. */
  private void newPattern(long seed) {
    EngineFixture.fill(pair.local.address(), TOTAL, seed);
  }

  private void assertExact(BatchResult r, String what) {
    assertTrue(r.allCompleted(), what + ": " + r);
    assertEquals(TOTAL, r.bytes(), what);
    assertEquals(
        -1,
        EngineFixture.mismatch(pair.local.address(), pair.remote.address(), TOTAL),
        what + ": bytes");
  }

  @Test
  void postsReuseTheirRecordsAndMoveExactBytes() {
    PreparedBatch p = prepare(new TransferOptions());
    assertEquals(writes(), p.requests());
    for (int i = 0; i < 50; i++) {
      newPattern(100 + i);
      assertExact(Await.result(p.post(), WAIT), "post " + i);
    }
    assertEquals(1, p.recordsMade(), "every post ran on the first records");
    assertEquals(0, p.overflowPosts());
  }

  @Test
  void aCallbackOnTheEventLoopPostsAgainOnTheSameRecords() {
    PreparedBatch p = prepare(new TransferOptions());
    newPattern(7);
    Context ctx = pair.vertxA.getOrCreateContext();
    Promise<Integer> done = Promise.promise();
    ctx.runOnContext(v -> postUntil(p, 500, 0, done));
    assertEquals(500, Await.result(done.future(), WAIT));
    assertEquals(1, p.recordsMade());
    assertEquals(
        0, p.overflowPosts(), "a post from the last one's callback finds the records free");
    assertExact(Await.result(p.post(), WAIT), "last post");
  }

  private static void postUntil(PreparedBatch p, int posts, int done, Promise<Integer> result) {
    p.post()
        .onComplete(
            ar -> {
              if (ar.failed() || !ar.result().allCompleted()) {
                result.fail(ar.failed() ? ar.cause() : new AssertionError(ar.result()));
              } else if (done + 1 == posts) {
                result.complete(posts);
              } else {
                postUntil(p, posts, done + 1, result);
              }
            });
  }

  @Test
  void badInputFailsAtPrepareWithTheSubmitsTypedError() {
    RegisteredBuffer foreign = pair.fx.register(pair.b, 4096, 3);
    assertCode(
        ErrorCode.NOT_REGISTERED,
        pair.a.prepare(
            List.of(TransferRequest.write(foreign, 0, pair.segment, pair.remote.address(), 4096)),
            new TransferOptions()));
    assertCode(
        ErrorCode.OUT_OF_RANGE,
        pair.a.prepare(
            List.of(
                TransferRequest.write(
                    pair.local, 0, pair.segment, pair.remote.address() + TOTAL, 4096)),
            new TransferOptions()));
    assertCode(ErrorCode.INVALID_ARGUMENT, pair.a.prepare(List.of(), new TransferOptions()));
    assertCode(ErrorCode.INVALID_ARGUMENT, pair.a.prepare(writes(), null));
  }

  @Test
  void afterCloseAPostFailsEngineClosedAndSoDoesPrepare() {
    PreparedBatch p = prepare(new TransferOptions());
    Await.result(pair.a.close(), WAIT);
    assertCode(ErrorCode.ENGINE_CLOSED, p.post());
    assertCode(ErrorCode.ENGINE_CLOSED, pair.a.prepare(writes(), new TransferOptions()));
  }

  @Test
  void overlappingPostsRunAsOrdinarySubmitsAndAllAreExact() {
    PreparedBatch p = prepare(new TransferOptions());
    newPattern(11);
    pair.stall(Duration.ofMillis(200));
    List<Future<BatchResult>> posts = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      posts.add(p.post());
    }
    pair.unstall();
    for (Future<BatchResult> f : posts) {
      assertExact(Await.result(f, WAIT), "overlapping post");
    }
    assertEquals(7, p.overflowPosts(), "the first post held the records while 7 more were made");
    assertEquals(1, p.recordsMade());
  }

  @Test
  void aCancelledPostRetiresItsRecordsAndTheNextPostIsExact() {
    PreparedBatch p = prepare(new TransferOptions());
    newPattern(21);
    pair.stall(Duration.ofMillis(300));
    Future<BatchResult> first = p.post();
    p.cancel();
    BatchResult r = Await.result(first, WAIT);
    assertEquals(RequestStatus.CANCELED, r.requests().get(2).status(), r.toString());
    pair.unstall();
    pair.awaitStragglers("the cancelled post's");
    newPattern(22);
    assertExact(Await.result(p.post(), WAIT), "post after the cancel");
    assertEquals(2, p.recordsMade(), "the cancelled post's records were left to its slices");
    newPattern(23);
    assertExact(Await.result(p.post(), WAIT), "next post");
    assertEquals(2, p.recordsMade(), "a post that completed gave its records back");
  }

  @Test
  void aPostPastItsDeadlineTimesOutAndTheNextPostIsExact() {
    PreparedBatch p = prepare(new TransferOptions().setDeadline(Duration.ofMillis(100)));
    newPattern(31);
    pair.stall(Duration.ofMillis(300));
    BatchResult r = Await.result(p.post(), WAIT);
    assertEquals(RequestStatus.TIMED_OUT, r.requests().get(2).status(), r.toString());
    pair.unstall();
    // a new post's deadline counts from the post; it may queue behind the held frames at first
    assertExactOnceAPostCompletes(p, 32, "the timed-out");
  }

  @Test
  void aFailedPostRetiresItsRecordsAndTheNextPostIsExact() {
    PreparedBatch p = prepare(new TransferOptions());
    pair.fx.portDown(pair.a, 0);
    pair.fx.portDown(pair.a, 1);
    BatchResult r = Await.result(p.post(), WAIT);
    assertTrue(
        r.requests().stream().allMatch(x -> x.status() == RequestStatus.FAILED), r.toString());
    pair.fx.portUp(pair.a, 0);
    pair.fx.portUp(pair.a, 1);
    assertExactOnceAPostCompletes(p, 42, "the failed");
  }

  /**
   * Posts until one completes (the rails may be held down, the QP behind held frames), then a post
   * of a fresh pattern must be exact, on records other than the ended post's.
   */
  private void assertExactOnceAPostCompletes(PreparedBatch p, long seed, String ended) {
    Await.until(
        "a post completes after " + ended + " one",
        WAIT,
        () -> Await.result(p.post(), WAIT).allCompleted());
    pair.awaitStragglers(ended + " post's");
    newPattern(seed);
    assertExact(Await.result(p.post(), WAIT), "post after " + ended + " one");
    assertTrue(p.recordsMade() >= 2, ended + " post's records were retired");
  }

  /**
   * A cancel from another thread, released together with each post: every post ends with one result
   * per request, each COMPLETED (bytes exact) or CANCELED, and the records are reused whenever a
   * post completed on its own.
   */
  @Test
  void cancelsRacingPostsNeverLeaveAPostWrongOrHanging() throws Exception {
    PreparedBatch p = prepare(new TransferOptions());
    CyclicBarrier together = new CyclicBarrier(2);
    Thread canceller =
        StallableEnginePair.startCanceller(
            together,
            300,
            i -> {
              if (i % 3 != 0) {
                p.cancel();
              }
            });
    int completed = 0;
    for (int i = 0; i < 300; i++) {
      newPattern(1000 + i);
      together.await(30, TimeUnit.SECONDS);
      BatchResult r = Await.result(p.post(), WAIT);
      together.await(30, TimeUnit.SECONDS);
      assertEquals(SIZES.length, r.requests().size());
      long off = 0;
      for (int k = 0; k < SIZES.length; k++) {
        RequestResult rr = r.requests().get(k);
        if (rr.status() == RequestStatus.COMPLETED) {
          assertEquals(SIZES[k], rr.bytes(), "post " + i + " request " + k);
          assertEquals(
              -1,
              EngineFixture.mismatch(
                  pair.local.address() + off, pair.remote.address() + off, SIZES[k]),
              "post " + i + " request " + k + " completed but its bytes differ");
        } else {
          assertEquals(RequestStatus.CANCELED, rr.status(), "post " + i + ": " + r);
        }
        off += SIZES[k];
      }
      if (r.allCompleted()) {
        completed++;
      } else {
        pair.awaitStragglers("a cancelled post's");
      }
    }
    canceller.join(30_000);
    assertTrue(completed > 0, "some posts completed");
    newPattern(5000);
    assertExact(Await.result(p.post(), WAIT), "the post after the race");
  }

  private static void assertCode(ErrorCode expected, Future<?> f) {
    Throwable t = Await.failure(f, WAIT);
    assertEquals(expected, assertInstanceOf(VteException.class, t).code(), String.valueOf(t));
  }
}
