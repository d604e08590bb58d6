package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Promise;
import io.vte.api.BatchResult;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A request submitted alone that fits in one slice runs on pooled records (the engine's submit
 * record pool): records are reused after a run that completed, each caller gets its own result and
 * exact bytes whatever thread submits, a handle kept after its run never touches the records' next
 * run, a run that was cancelled or timed out leaves its records to its stragglers, and a request
 * allocates little more than the caller's handle and result.
 */
@ExtendWith(BlockedThreadGuard.class)
class SubmitRecordTest {

  private static final long SLICE = 65536;

  /** Room for one request of up to a slice per caller thread. */
  private static final int CALLERS = 4;

  private StallableEnginePair pair;

  @BeforeEach
  void start() {
    pair = new StallableEnginePair(CALLERS * SLICE * 2);
  }

  @AfterEach
  void close() {
    pair.close();
  }

  private TransferRequest write(long offset, long length) {
    return TransferRequest.write(
        pair.local, offset, pair.segment, pair.remote.address() + offset, length);
  }

  private TransferBatch submit(long offset, long length, TransferOptions options) {
    return pair.a.submit(List.of(write(offset, length)), options);
  }

  /** Completed with exactly {@code length} bytes, and the destination equals the source. */
  private void assertExact(BatchResult r, long offset, long length, String what) {
    assertTrue(r.allCompleted(), what + ": " + r);
    assertEquals(length, r.bytes(), what + ": bytes of another request?");
    assertEquals(
        -1,
        EngineFixture.mismatch(
            pair.local.address() + offset, pair.remote.address() + offset, length),
        what + ": data");
  }

  private void newPattern(long seed) {
    EngineFixture.fill(pair.local.address(), CALLERS * SLICE * 2, seed);
  }

  @Test
  void requestsSubmittedAloneRunOnTheSameRecordsAndMoveExactBytes() {
    long[] lengths = {4096, 1, SLICE, 100, 4096};
    for (int i = 0; i < 50; i++) {
      newPattern(100 + i);
      long length = lengths[i % lengths.length];
      BatchResult r = Await.result(submit(0, length, new TransferOptions()).result(), WAIT);
      assertExact(r, 0, length, "request " + i);
    }
    assertEquals(
        1, EngineInternals.submitRecordsMade(pair.a), "every request ran on the first records");
    newPattern(7);
    assertExact(
        Await.result(submit(0, SLICE + 1, new TransferOptions()).result(), WAIT),
        0,
        SLICE + 1,
        "a request of two slices");
    assertEquals(
        1,
        EngineInternals.submitRecordsMade(pair.a),
        "a request of two slices runs on records of its own");
  }

  @Test
  void aHandleKeptAfterItsRunNeverCancelsTheRecordsNextRun() {
    newPattern(11);
    TransferBatch first = submit(0, 4096, new TransferOptions());
    assertExact(Await.result(first.result(), WAIT), 0, 4096, "first");
    pair.stall(Duration.ofMillis(200));
    newPattern(12);
    TransferBatch second = submit(0, 4096, new TransferOptions());
    assertEquals(
        1,
        EngineInternals.submitRecordsMade(pair.a),
        "the second request runs on the first's records");
    first.cancel();
    pair.unstall();
    assertExact(Await.result(second.result(), WAIT), 0, 4096, "the run after a stale cancel");
  }

  @Test
  void aCancelledRunLeavesItsRecordsAndTheNextRequestIsExact() {
    newPattern(21);
    pair.stall(Duration.ofMillis(300));
    TransferBatch cancelled = submit(0, 4096, new TransferOptions());
    cancelled.cancel();
    BatchResult r = Await.result(cancelled.result(), WAIT);
    assertEquals(RequestStatus.CANCELED, r.requests().get(0).status(), r.toString());
    pair.unstall();
    pair.awaitStragglers("the cancelled request's");
    newPattern(22);
    assertExact(
        Await.result(submit(0, 4096, new TransferOptions()).result(), WAIT), 0, 4096, "next");
    assertEquals(
        2,
        EngineInternals.submitRecordsMade(pair.a),
        "the cancelled run's records were left to its slice");
    newPattern(23);
    assertExact(
        Await.result(submit(0, 4096, new TransferOptions()).result(), WAIT), 0, 4096, "last");
    assertEquals(
        2, EngineInternals.submitRecordsMade(pair.a), "a run that completed gave its records back");
  }

  @Test
  void aRunPastItsDeadlineTimesOutAndTheNextRequestIsExact() {
    newPattern(31);
    pair.stall(Duration.ofMillis(300));
    BatchResult r =
        Await.result(
            submit(0, 4096, new TransferOptions().setDeadline(Duration.ofMillis(100))).result(),
            WAIT);
    assertEquals(RequestStatus.TIMED_OUT, r.requests().get(0).status(), r.toString());
    pair.unstall();
    pair.awaitStragglers("the timed-out request's");
    newPattern(32);
    assertExact(
        Await.result(submit(0, 4096, new TransferOptions()).result(), WAIT), 0, 4096, "next");
    assertEquals(
        2,
        EngineInternals.submitRecordsMade(pair.a),
        "the timed-out run's records were left to its slice");
  }

  /**
   * Callers on several threads, each with its own length and range: every result is the caller's
   * own (its length in bytes, its range exact). Records shared between two runs would give one
   * caller the other's length, or complete a run before its bytes moved.
   */
  @Test
  void callersOnManyThreadsEachGetTheirOwnResult() throws Exception {
    newPattern(41);
    CyclicBarrier go = new CyclicBarrier(CALLERS);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int c = 0; c < CALLERS; c++) {
      long offset = c * SLICE * 2;
      long length = 1000 + 4096L * c + c;
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await(30, TimeUnit.SECONDS);
                  for (int i = 0; i < 400; i++) {
                    BatchResult r =
                        Await.result(submit(offset, length, new TransferOptions()).result(), WAIT);
                    assertExact(r, offset, length, "caller at " + offset + " request " + i);
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "caller-" + c);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join(WAIT.toMillis());
    }
    assertTrue(failures.isEmpty(), () -> "failures: " + failures);
    assertTrue(
        EngineInternals.submitRecordsMade(pair.a) <= CALLERS * 2,
        "records were reused: "
            + EngineInternals.submitRecordsMade(pair.a)
            + " made for 1600 requests");
  }

  /**
   * A cancel from another thread, released together with each request, of the handle it finds: the
   * new request's, or the last one's while the new one takes its records. Every request ends
   * COMPLETED with its bytes exact, or CANCELED by a cancel of its own handle, and none hangs. A
   * small request often completes before the cancel lands, so every tenth round holds A's frames
   * and cancels only once the round's request is submitted: that request surely ends CANCELED.
   */
  @Test
  void cancelsRacingRequestsNeverLeaveOneWrongOrHanging() throws Exception {
    CyclicBarrier together = new CyclicBarrier(2);
    AtomicReference<TransferBatch> current = new AtomicReference<>();
    AtomicReference<TransferBatch> cancelled = new AtomicReference<>();
    AtomicInteger submitted = new AtomicInteger(-1);
    Thread canceller =
        StallableEnginePair.startCanceller(
            together,
            300,
            i -> {
              if (stalledRound(i)) {
                Await.until("request " + i + " submitted", WAIT, () -> submitted.get() == i);
              } else if (i % 3 == 0) {
                return;
              }
              TransferBatch h = current.get();
              if (h != null) {
                h.cancel();
                cancelled.set(h);
              }
            });
    int completed = 0;
    int cancels = 0;
    for (int i = 0; i < 300; i++) {
      long length = 512 + 97L * i;
      newPattern(1000 + i);
      if (stalledRound(i)) {
        pair.stall(Duration.ofMillis(50));
      }
      together.await(30, TimeUnit.SECONDS);
      TransferBatch mine = submit(0, length, new TransferOptions());
      current.set(mine);
      submitted.set(i);
      BatchResult r = Await.result(mine.result(), WAIT);
      together.await(30, TimeUnit.SECONDS);
      RequestResult rr = r.requests().get(0);
      if (stalledRound(i)) {
        pair.unstall();
        assertEquals(RequestStatus.CANCELED, rr.status(), "held request " + i + ": " + r);
      }
      if (rr.status() == RequestStatus.COMPLETED) {
        assertExact(r, 0, length, "request " + i);
        completed++;
      } else {
        assertEquals(RequestStatus.CANCELED, rr.status(), "request " + i + ": " + r);
        assertSame(mine, cancelled.get(), "request " + i + " was cancelled by another's handle");
        cancels++;
        pair.awaitStragglers("the cancelled request's");
      }
      cancelled.set(null);
    }
    canceller.join(30_000);
    assertTrue(completed > 0, "some requests completed");
    assertTrue(cancels > 0, "some requests were cancelled");
    newPattern(5000);
    assertExact(
        Await.result(submit(0, 4096, new TransferOptions()).result(), WAIT),
        0,
        4096,
        "the request after the race");
  }

  /** Every tenth round of the cancel race holds A's frames, so that its cancel lands first. */
  private static boolean stalledRound(int i) {
    return i % 10 == 5;
  }

  /**
   * A caller on an event loop that submits its next request from the last one's callback: the whole
   * JVM allocates about 160 B per request (the caller's handle, result and callback, and the hop to
   * the owner), where records made per request add about 260 B more (a batch tracker, a request
   * tracker, a slice, arrays and a list), so the bound between the two fails if records are made
   * per request.
   */
  @Test
  void aRequestAllocatesLessThanItsRecords() {
    newPattern(51);
    chain(5000); // warm up
    long before = allocatedByAllThreads();
    int requests = 20_000;
    chain(requests);
    long perRequest = (allocatedByAllThreads() - before) / requests;
    assertTrue(perRequest < 250, "allocated " + perRequest + " B per request");
  }

  private void chain(int requests) {
    List<TransferRequest> one = List.of(write(0, 4096));
    TransferOptions options = new TransferOptions();
    Promise<Integer> done = Promise.promise();
    pair.vertxA.getOrCreateContext().runOnContext(v -> next(one, options, requests, 0, done));
    assertEquals(requests, Await.result(done.future(), WAIT));
  }

  private void next(
      List<TransferRequest> one,
      TransferOptions options,
      int requests,
      int done,
      Promise<Integer> result) {
    pair.a
        .submit(one, options)
        .result()
        .onComplete(
            ar -> {
              if (ar.failed() || !ar.result().allCompleted()) {
                result.fail(ar.failed() ? ar.cause() : new AssertionError(ar.result()));
              } else if (done + 1 == requests) {
                result.complete(requests);
              } else {
                next(one, options, requests, done + 1, result);
              }
            });
  }

  private static long allocatedByAllThreads() {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long sum = 0;
    for (long bytes : mx.getThreadAllocatedBytes(mx.getAllThreadIds())) {
      sum += Math.max(0, bytes);
    }
    return sum;
  }
}
