package io.vte.engine.impl.submit;

import static io.vte.engine.impl.submit.DataPathHarness.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.TransferBatch;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.engine.impl.segment.FakeDeviceMemory;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.WcStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The engine data path over the fake carrier: slicing, rails, retries, deadlines, cancel. */
@ExtendWith(BlockedThreadGuard.class)
class DataPathTest {

  private static final int SLICE = 4096;
  private DataPathHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void writeAndReadAreByteExactAcrossSliceBoundaries() {
    h = new DataPathHarness(2, 2, SLICE, 4);
    long[] sizes = {1, SLICE - 1, SLICE, SLICE + 1, 7L * SLICE + 13, 256L * SLICE};
    long total = 0;
    for (long size : sizes) {
      total += size;
    }
    DataPathHarness.Span span = h.span(total);
    List<TransferRequest> writes = new ArrayList<>();
    long off = 0;
    for (long size : sizes) {
      writes.add(span.write(off, off, size));
      off += size;
    }
    BatchResult w = h.run(writes);
    assertTrue(w.allCompleted(), w.toString());
    assertEquals(total, w.bytes());
    assertTrue(
        DataPathHarness.equal(span.local().address(), span.remote(), total),
        "remote equals local after WRITE");

    DataPathHarness.fill(span.remote(), total, 3);
    List<TransferRequest> reads = new ArrayList<>();
    off = 0;
    for (long size : sizes) {
      reads.add(span.read(off, off, size));
      off += size;
    }
    BatchResult r = h.run(reads);
    assertTrue(r.allCompleted(), r.toString());
    assertTrue(
        DataPathHarness.equal(span.local().address(), span.remote(), total),
        "local equals remote after READ");
    assertEquals(2 * total, h.counters.bytes());
  }

  @Test
  void aBatchSubmittedOnTheCompletingThreadCompletesInlineWithoutAHop() throws Exception {
    h = new DataPathHarness(1, 1, SLICE, 4);
    DataPathHarness.Span span = h.span(SLICE);
    CompletableFuture<Boolean> inline = new CompletableFuture<>();
    CompletableFuture<Boolean> onSubmitter = new CompletableFuture<>();
    h.carrier
        .context()
        .runOnContext(
            v ->
                h.submit(List.of(span.write(0, 0, 4096)), WAIT)
                    .result()
                    .onComplete(
                        ar -> {
                          onSubmitter.complete(Vertx.currentContext() == h.carrier.context());
                          inline.complete(ar.succeeded() && h.carrier.reporting());
                        }));
    assertTrue(
        inline.get(WAIT.toMillis(), TimeUnit.MILLISECONDS),
        "the result completes inside the slice's completion, with no task in between");
    assertTrue(
        onSubmitter.get(WAIT.toMillis(), TimeUnit.MILLISECONDS), "on the submitter's context");
  }

  @Test
  void aBatchSubmittedOutsideVertxCompletesOnTheThreadThatSawItsLastSliceDone() throws Exception {
    h = new DataPathHarness(1, 1, SLICE, 4);
    DataPathHarness.Span span = h.span(SLICE);
    for (int i = 0; i < 50; i++) {
      CompletableFuture<Boolean> inline = new CompletableFuture<>();
      assertEquals(null, Vertx.currentContext(), "the test thread is outside Vert.x");
      // held, so that the callback is registered before the slice completes
      h.carrier.hold();
      TransferBatch batch = h.submit(List.of(span.write(0, 0, 4096)), WAIT);
      batch
          .result()
          .onComplete(
              ar ->
                  inline.complete(
                      ar.succeeded()
                          && Vertx.currentContext() == h.carrier.context()
                          && h.carrier.reporting()));
      h.carrier.release();
      assertTrue(
          inline.get(WAIT.toMillis(), TimeUnit.MILLISECONDS),
          "round " + i + ": completed inside the slice's completion, with no hop to another loop");
    }
  }

  @Test
  void batchesThatFailInsideSubmitCompleteLaterSoACallbackLoopDoesNotRecurse() throws Exception {
    h = new DataPathHarness(1, 1, SLICE, 4);
    DataPathHarness.Span span = h.span(SLICE);
    h.rails.setLocalPortUp(0, false);
    int rounds = 20_000;
    AtomicInteger failed = new AtomicInteger();
    AtomicInteger depth = new AtomicInteger();
    AtomicInteger deepest = new AtomicInteger();
    CompletableFuture<Void> done = new CompletableFuture<>();
    Runnable[] next = new Runnable[1];
    next[0] =
        () -> {
          deepest.accumulateAndGet(depth.incrementAndGet(), Math::max);
          h.submit(List.of(span.write(0, 0, 4096)), WAIT)
              .result()
              .onComplete(
                  ar -> {
                    if (ar.succeeded()
                        && ar.result().requests().get(0).cause().code() == ErrorCode.NO_RAIL) {
                      failed.incrementAndGet();
                    }
                    if (failed.get() == rounds) {
                      done.complete(null);
                    } else {
                      next[0].run();
                    }
                  });
          depth.decrementAndGet();
        };
    h.carrier.context().runOnContext(v -> next[0].run());
    done.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    assertEquals(rounds, failed.get());
    assertEquals(1, deepest.get(), "each callback runs after the submit that failed returned");
  }

  /** Deadlines need no timer per batch: one sweep runs while batches are in flight, then stops. */
  @Test
  void theDeadlineSweepStopsWhenNothingIsInFlightAndRestartsForTheNextBatch() {
    h = new DataPathHarness(1, 1, SLICE, 4);
    DataPathHarness.Span span = h.span(SLICE);
    h.carrier.hold();
    for (int round = 0; round < 3; round++) {
      long start = System.nanoTime();
      BatchResult r =
          Await.result(
              h.submit(List.of(span.write(0, 0, 4096)), Duration.ofMillis(100)).result(), WAIT);
      long tookMs = (System.nanoTime() - start) / 1_000_000;
      assertEquals(RequestStatus.TIMED_OUT, r.requests().get(0).status(), "round " + round);
      assertTrue(tookMs >= 100, "not before the deadline: " + tookMs + " ms");
      Await.until(
          "the sweep stops once nothing is in flight",
          WAIT,
          () -> !h.submitter.deadlineSweepArmed());
    }
  }

  @Test
  void ofManyBatchesInFlightOnlyTheDueOnesExpire() {
    h = new DataPathHarness(1, 1, SLICE, 4);
    DataPathHarness.Span span = h.span(SLICE);
    h.carrier.hold();
    TransferBatch late = h.submit(List.of(span.write(0, 0, 4096)), Duration.ofSeconds(30));
    List<TransferBatch> soon =
        java.util.stream.IntStream.range(0, 200)
            .mapToObj(i -> h.submit(List.of(span.write(0, 0, 4096)), Duration.ofMillis(50)))
            .toList();
    for (TransferBatch b : soon) {
      assertEquals(
          RequestStatus.TIMED_OUT, Await.result(b.result(), WAIT).requests().get(0).status());
    }
    assertTrue(!late.result().isComplete(), "a batch with a later deadline is still running");
    assertTrue(h.submitter.deadlineSweepArmed(), "it is in flight, so the sweep goes on");
    h.carrier.release();
    assertEquals(
        RequestStatus.COMPLETED, Await.result(late.result(), WAIT).requests().get(0).status());
    Await.until("then the sweep stops", WAIT, () -> !h.submitter.deadlineSweepArmed());
  }

  @Test
  void slicesSpreadEvenlyOverEveryRail() {
    h = new DataPathHarness(2, 2, SLICE, 4);
    DataPathHarness.Span span = h.span(400L * SLICE);
    assertTrue(h.run(List.of(span.write(0, 0, 400L * SLICE))).allCompleted());
    assertEquals(4, h.carrier.postedByRail.size(), "every (local, peer) pair is used");
    h.carrier.postedByRail.values().forEach(n -> assertEquals(100, n.get()));
  }

  @Test
  void failingRailsFailOverAndDataStaysExact() {
    h = new DataPathHarness(4, 4, SLICE, 4);
    h.carrier.failRails(
        r -> r.localDeviceIndex() == 1 || r.peerDeviceName().equals("peer2"),
        WcStatus.RETRY_EXC_ERR.code());
    long size = 300L * SLICE + 77;
    LocalBuffer local = h.register(size, 11);
    long remote = h.peerBuffer(size, 12);
    h.publish();
    PeerSegment seg = h.open();
    for (int round = 0; round < 5; round++) {
      DataPathHarness.fill(local.address(), size, 100 + round);
      BatchResult r = h.run(List.of(TransferRequest.write(local, 0, seg, remote, size)));
      assertTrue(r.allCompleted(), r.toString());
      assertTrue(DataPathHarness.equal(local.address(), remote, size), "round " + round);
    }
    assertTrue(h.counters.retries() > 0, "failed slices were retried");
    h.carrier
        .postedByRail
        .keySet()
        .forEach(
            rail ->
                assertTrue(
                    rail.localDeviceIndex() != 1 && !rail.peerDeviceName().equals("peer2"),
                    "posted on " + rail));
  }

  @Test
  void retryExhaustionFailsWithTheLastVerbsStatus() {
    RequestResult r =
        oneSliceOverFailingRails(2, 2, 3, WcStatus.RETRY_EXC_ERR.code(), TransferRequest::write);
    assertEquals(RequestStatus.FAILED, r.status());
    // Either the retries ran out or every rail was paused first: both name the verbs status.
    assertEquals(ErrorCode.TRANSFER_FAILED, r.cause().code(), r.cause().toString());
    assertTrue(r.cause().getMessage().contains("RETRY_EXC_ERR"), r.cause().getMessage());
    assertEquals(0, r.bytes());
  }

  @Test
  void exhaustedRetriesReportTransferFailedNamingTheStatus() {
    // A non-penalizing retryable status: the rail is never paused, so the retries run out.
    RequestResult r =
        oneSliceOverFailingRails(1, 1, 2, WcStatus.WR_FLUSH_ERR.code(), TransferRequest::write);
    assertEquals(ErrorCode.TRANSFER_FAILED, r.cause().code());
    assertTrue(
        r.cause().getMessage().contains("WR_FLUSH_ERR")
            && r.cause().getMessage().contains("3 attempt(s)"),
        r.cause().getMessage());
    assertEquals(3, h.carrier.routed.get(), "1 attempt + retryCount 2");
  }

  @Test
  void slicesFlushedByARetiredEndpointGetExtraAttempts() {
    RequestResult r =
        oneSliceOverFailingRails(1, 1, 2, SliceStatus.ENDPOINT_RETIRED, TransferRequest::write);
    assertEquals(ErrorCode.TRANSFER_FAILED, r.cause().code());
    assertTrue(r.cause().getMessage().contains("ENDPOINT_RETIRED"), r.cause().getMessage());
    assertEquals(
        3 + TrackerServices.RETIRED_ALLOWANCE,
        h.carrier.routed.get(),
        "bounded, but beyond retryCount");
  }

  @Test
  void railDownSlicesMoveToTheHealthyRailsWithoutSpendingTheRetryBudget() {
    // 8 rails, 7 of them down (a flapping NIC on both sides seen from every angle), retryCount 1: a
    // slice may
    // meet RAIL_DOWN on several rails in a row and must still end on the healthy one.
    h = new DataPathHarness(2, 4, SLICE, 1);
    h.carrier.failRails(
        r -> !(r.localDeviceIndex() == 0 && r.peerDeviceName().equals("peer3")),
        SliceStatus.RAIL_DOWN);
    long size = 16L * SLICE;
    LocalBuffer local = h.register(size, 21);
    long remote = h.peerBuffer(size, 22);
    h.publish();
    BatchResult r = h.run(List.of(TransferRequest.write(local, 0, h.open(), remote, size)));
    assertTrue(r.allCompleted(), r.toString());
    assertTrue(DataPathHarness.equal(local.address(), remote, size));
    assertTrue(
        h.carrier.routed.get() >= 16 + 7,
        "every down rail turned slices back: " + h.carrier.routed.get());
    h.carrier
        .postedByRail
        .keySet()
        .forEach(
            rail ->
                assertTrue(
                    rail.localDeviceIndex() == 0 && rail.peerDeviceName().equals("peer3"),
                    "posted on " + rail));
  }

  @Test
  void pausedRailsFailWithTheCauseThatPausedThem() {
    RequestResult r =
        oneSliceOverFailingRails(1, 1, 10, WcStatus.RETRY_EXC_ERR.code(), TransferRequest::write);
    assertEquals(ErrorCode.TRANSFER_FAILED, r.cause().code(), r.cause().toString());
    assertTrue(
        r.cause().getMessage().contains("paused")
            && r.cause().getMessage().contains("RETRY_EXC_ERR"),
        r.cause().getMessage());
    assertEquals(3, h.carrier.routed.get(), "the only rail is paused after 3 errors");
  }

  @Test
  void aDeadPeersPausedRailsSayPeerUnreachableToLaterTransfersToo() {
    // Retries enough to pause all 4 rails (3 failures each) before giving up.
    h = new DataPathHarness(2, 2, SLICE, 20);
    h.carrier.failRails(r -> true, SliceStatus.HANDSHAKE_FAILED);
    DataPathHarness.Span span = h.span(SLICE);
    RequestResult first = h.run(List.of(span.write(0, 0, SLICE))).requests().get(0);
    assertEquals(ErrorCode.PEER_UNREACHABLE, first.cause().code(), first.cause().toString());
    assertEquals(12, h.carrier.routed.get(), "tried until every rail was paused");
    int routed = h.carrier.routed.get();
    RequestResult later = h.run(List.of(span.write(0, 0, SLICE))).requests().get(0);
    assertEquals(ErrorCode.PEER_UNREACHABLE, later.cause().code(), later.cause().toString());
    assertTrue(later.cause().getMessage().contains("paused"), later.cause().getMessage());
    assertEquals(routed, h.carrier.routed.get(), "every rail is paused: nothing was sent");
    h.clock.addAndGet(Duration.ofSeconds(3).toNanos());
    h.carrier.failRails(r -> false, 0);
    assertTrue(
        h.run(List.of(span.write(0, 0, SLICE))).allCompleted(),
        "after the hold-down the rails are probed again");
  }

  @Test
  void remoteAccessErrorIsNotRetriedOnAnotherRailAndStandsWhenTheDescriptorIsNotNewer() {
    h = new DataPathHarness(2, 2, SLICE, 4);
    h.carrier.failRails(r -> true, WcStatus.REM_ACCESS_ERR.code());
    DataPathHarness.Span span = h.span(SLICE);
    long lookups = h.lookups.get();
    RequestResult r =
        h.run(List.of(TransferRequest.read(span.local(), 0, span.seg(), span.remote(), SLICE)))
            .requests()
            .get(0);
    assertEquals(ErrorCode.REMOTE_ACCESS_DENIED, r.cause().code());
    assertEquals(1, h.carrier.routed.get(), "not sent again: the fresh descriptor is no newer");
    assertEquals(lookups + 1, h.lookups.get(), "the refusal read the descriptor fresh, once");
    h.open();
    assertEquals(lookups + 1, h.lookups.get(), "re-opening returns the descriptor read then");
  }

  @Test
  void slicesRefusedAtOnceOnTwoOwnersRedirectTheRequestOnceAndItCompletes() throws Exception {
    h = new DataPathHarness(2, 2, SLICE, 4);
    DataPathHarness.Span span = h.span(2L * SLICE);
    ExecutorService owners = Executors.newFixedThreadPool(2);
    try {
      for (int i = 0; i < 8000; i++) {
        h.carrier.hold();
        int routed = h.carrier.routed.get();
        TransferBatch batch = h.submit(List.of(span.write(0, 0, 2L * SLICE)), WAIT);
        Await.until("2 slices routed", WAIT, () -> h.carrier.routed.get() == routed + 2);
        List<Slice> refused = Await.result(h.carrier.takeHeld(), WAIT);
        assertEquals(2, refused.size(), "iteration " + i);
        h.publish(); // the peer registered the range again: a newer descriptor holds it
        CyclicBarrier together = new CyclicBarrier(2);
        List<Future<?>> reports = new ArrayList<>();
        for (Slice s : refused) {
          reports.add(
              owners.submit(
                  () -> {
                    together.await();
                    s.callback().onSliceDone(s, WcStatus.REM_ACCESS_ERR.code(), null);
                    return null;
                  }));
        }
        for (Future<?> f : reports) {
          f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        h.carrier.release();
        BatchResult r = Await.result(batch.result(), WAIT);
        assertTrue(r.allCompleted(), "iteration " + i + ": " + r);
      }
    } finally {
      owners.shutdownNow();
    }
  }

  @Test
  void deadlineTimesOutAndQueuedSlicesAreNeverPosted() {
    h = new DataPathHarness(2, 2, SLICE, 4);
    DataPathHarness.Span span = h.span(64L * SLICE);
    h.carrier.hold();
    TransferBatch batch =
        h.submit(
            List.of(span.write(0, 0, 64L * SLICE), span.read(0, 0, SLICE)), Duration.ofMillis(200));
    BatchResult r = Await.result(batch.result(), WAIT);
    for (RequestResult rr : r.requests()) {
      assertEquals(RequestStatus.TIMED_OUT, rr.status());
      assertEquals(ErrorCode.TIMED_OUT, rr.cause().code());
    }
    h.carrier.release();
    Await.untilEquals("held slices dropped", WAIT, 65, h.carrier.abandoned::get);
    assertEquals(0, h.carrier.posted.get());
    assertEquals(0, h.submitter.inFlight());
  }

  @Test
  void cancelReportsCanceledAndNothingIsPostedAfterwards() {
    h = new DataPathHarness(2, 2, SLICE, 4);
    DataPathHarness.Span span = h.span(32L * SLICE);
    for (int i = 0; i < 20; i++) {
      h.carrier.hold();
      BatchTracker batch =
          h.submitTracked(List.of(span.write(0, 0, 32L * SLICE)), Duration.ofSeconds(30));
      Await.result(batch.accepted(), WAIT);
      batch.cancel();
      h.carrier.mark();
      h.carrier.release();
      RequestResult r = Await.result(batch.result(), WAIT).requests().get(0);
      assertEquals(RequestStatus.CANCELED, r.status());
      assertEquals(ErrorCode.CANCELED, r.cause().code());
    }
    Await.untilEquals("every canceled slice dropped", WAIT, 20 * 32, h.carrier.abandoned::get);
    assertEquals(0, h.carrier.postedAfterMark.get());
  }

  @Test
  void cancelBeforeValidationEndsSendsNothing() {
    h = new DataPathHarness(1, 1, SLICE, 4);
    LocalBuffer local = h.register(SLICE, 1);
    long remote = h.peerBuffer(SLICE, 2);
    h.publish();
    PeerSegment stale = h.open();
    long later = h.peerBuffer(SLICE, 3);
    h.publish();
    // The stale segment forces a refresh held by a slow store; cancel lands before the slices are
    // cut.
    h.lookupGate = io.vertx.core.Promise.promise();
    TransferBatch batch =
        h.submit(
            List.of(TransferRequest.write(local, 0, stale, later, SLICE)), Duration.ofSeconds(30));
    batch.cancel();
    h.lookupGate.complete();
    assertEquals(
        RequestStatus.CANCELED, Await.result(batch.result(), WAIT).requests().get(0).status());
    assertEquals(0, h.carrier.routed.get());
    assertTrue(
        DataPathHarness.equal(remote, remote, SLICE)
            && !DataPathHarness.equal(local.address(), later, SLICE),
        "nothing was written");
  }

  /**
   * A local buffer, a handle opened with one peer buffer, and a second peer buffer published after
   * it.
   */
  private record StaleHandle(LocalBuffer local, PeerSegment kept, long added) {}

  private StaleHandle staleHandle(int localDevices) {
    h = new DataPathHarness(localDevices, 2, SLICE, 4);
    LocalBuffer local = h.register(SLICE, 1);
    h.peerBuffer(SLICE, 2);
    h.publish();
    PeerSegment kept = h.open();
    long added = h.peerBuffer(SLICE, 3);
    h.publish();
    return new StaleHandle(local, kept, added);
  }

  @Test
  void staleSegmentIsRefreshedOnceThenOutOfRange() {
    StaleHandle s = staleHandle(2);
    LocalBuffer local = s.local();
    PeerSegment stale = s.kept();
    long added = s.added();
    long before = h.lookups.get();
    BatchResult r = h.run(List.of(TransferRequest.write(local, 0, stale, added, SLICE)));
    assertTrue(r.allCompleted(), r.toString());
    assertTrue(DataPathHarness.equal(local.address(), added, SLICE));
    assertEquals(before + 1, h.lookups.get(), "one refresh");
    assertEquals(2, h.open().buffers().size(), "the cache holds the fresh descriptor");

    VteException e =
        (VteException)
            Await.failure(
                h.submit(
                        List.of(
                            TransferRequest.write(
                                local, 0, h.open(), added + SLICE * 1000L, SLICE)),
                        Duration.ofSeconds(5))
                    .result(),
                WAIT);
    assertEquals(ErrorCode.OUT_OF_RANGE, e.code());
    assertTrue(e.getMessage().contains(Long.toHexString(added + SLICE * 1000L)), e.getMessage());
    assertEquals(before + 2, h.lookups.get(), "refreshed once more, then gave up");
    assertEquals(0, h.carrier.routed.get() - 1, "only the first request was sent");
  }

  @Test
  void aKeptHandleRefreshesAgainOnEachNewBuffer() {
    h = new DataPathHarness(1, 2, SLICE, 4);
    LocalBuffer local = h.register(SLICE, 1);
    h.peerBuffer(SLICE, 2);
    h.publish();
    PeerSegment kept = h.open();
    for (int round = 1; round <= 3; round++) {
      long added = h.peerBuffer(SLICE, 2 + round);
      h.publish();
      long before = h.lookups.get();
      BatchResult r = h.run(List.of(TransferRequest.write(local, 0, kept, added, SLICE)));
      assertTrue(r.allCompleted(), "round " + round + ": " + r);
      assertTrue(DataPathHarness.equal(local.address(), added, SLICE), "round " + round);
      assertEquals(before + 1, h.lookups.get(), "round " + round + ": one lookup");
      assertEquals(
          round + 1,
          h.open().buffers().size(),
          "round " + round + ": re-opening returns the fresh descriptor");
    }
  }

  @Test
  void concurrentMissesOfManyCallersShareOneLookup() throws Exception {
    StaleHandle s = staleHandle(1);
    LocalBuffer local = s.local();
    PeerSegment kept = s.kept();
    long added = s.added();
    long before = h.lookups.get();
    h.lookupGate = io.vertx.core.Promise.promise();
    int callers = 8;
    int perCaller = 16;
    java.util.concurrent.CyclicBarrier barrier = new java.util.concurrent.CyclicBarrier(callers);
    List<TransferBatch> batches = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      Thread t =
          new Thread(
              () -> {
                try {
                  barrier.await();
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                for (int i = 0; i < perCaller; i++) {
                  batches.add(
                      h.submit(
                          List.of(TransferRequest.write(local, 0, kept, added, SLICE)),
                          Duration.ofSeconds(30)));
                }
              });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join(WAIT.toMillis());
    }
    assertEquals(callers * perCaller, batches.size());
    h.lookupGate.complete();
    for (TransferBatch b : batches) {
      BatchResult r = Await.result(b.result(), WAIT);
      assertTrue(r.allCompleted(), r.toString());
    }
    assertEquals(before + 1, h.lookups.get(), "every miss shared one lookup");
  }

  @Test
  void badInputIsTypedNamedAndSendsNothing() {
    h = new DataPathHarness(2, 2, SLICE, 4);
    DataPathHarness.Span span = h.span(4L * SLICE);
    LocalBuffer gone = h.register(SLICE, 5);
    h.memory.unregister(gone);
    LocalBuffer foreign =
        new MemoryRegistry(new FakeDeviceMemory(2), () -> {}).register(0x7000_0000L, SLICE, "x");

    expect(ErrorCode.INVALID_ARGUMENT, "length must be positive, got 0", span.write(0, 0, 0));
    expect(ErrorCode.INVALID_ARGUMENT, "got -5", span.write(0, 0, -5));
    expect(
        ErrorCode.NOT_REGISTERED,
        Long.toHexString(gone.address()),
        TransferRequest.write(gone, 0, span.seg(), span.remote(), 1));
    expect(
        ErrorCode.NOT_REGISTERED,
        "70000000",
        TransferRequest.write(foreign, 0, span.seg(), span.remote(), 1));
    expect(
        ErrorCode.OUT_OF_RANGE,
        Long.toHexString(span.local().address() + 4L * SLICE - 1),
        span.write(4L * SLICE - 1, 0, 2));
    expect(ErrorCode.OUT_OF_RANGE, "offset -1", span.write(-1, 0, 2));
    expect(
        ErrorCode.OUT_OF_RANGE,
        Long.toHexString(span.remote() + 4L * SLICE),
        span.read(0, 4L * SLICE, 1));
    expect(ErrorCode.OUT_OF_RANGE, Long.toHexString(span.remote() - 1), span.read(0, -1, 16));
    expect(
        ErrorCode.INVALID_ARGUMENT,
        "required",
        new TransferRequest(null, span.local(), 0, span.seg(), span.remote(), 1));
    // one bad request in a batch stops the whole batch
    VteException mixed =
        (VteException)
            Await.failure(
                h.submit(List.of(span.write(0, 0, 8), span.write(0, 0, 0)), Duration.ofSeconds(5))
                    .result(),
                WAIT);
    assertTrue(mixed.getMessage().contains("request 1"), mixed.getMessage());
    VteException empty =
        (VteException) Await.failure(h.submit(List.of(), Duration.ofSeconds(5)).result(), WAIT);
    assertEquals(ErrorCode.INVALID_ARGUMENT, empty.code());
    assertEquals(
        ErrorCode.SEGMENT_NOT_FOUND,
        ((VteException) Await.failure(h.segments.open("10.9.9.9:1"), WAIT)).code());
    assertEquals(0, h.carrier.routed.get(), "nothing was sent");

    h.submitter.close();
    expect(ErrorCode.ENGINE_CLOSED, "closed", span.write(0, 0, 1));
    assertEquals(0, h.carrier.routed.get());
  }

  @Test
  void closeSettlesEveryBatchInFlight() {
    h = new DataPathHarness(2, 2, SLICE, 4);
    DataPathHarness.Span span = h.span(8L * SLICE);
    h.carrier.hold();
    List<TransferBatch> batches = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      batches.add(h.submit(List.of(span.write(0, 0, 8L * SLICE)), Duration.ofSeconds(30)));
    }
    h.submitter.close();
    for (TransferBatch b : batches) {
      RequestResult r = Await.result(b.result(), WAIT).requests().get(0);
      assertEquals(RequestStatus.FAILED, r.status());
      assertEquals(ErrorCode.ENGINE_CLOSED, r.cause().code());
    }
    assertEquals(0, h.submitter.inFlight());
    h.carrier.release();
    Await.untilEquals("slices dropped", WAIT, 80, h.carrier.abandoned::get);
    assertEquals(0, h.carrier.posted.get());
  }

  /** A request factory: {@code TransferRequest::write} or {@code TransferRequest::read}. */
  private interface Op {
    TransferRequest of(LocalBuffer local, long offset, PeerSegment seg, long remote, long length);
  }

  /**
   * Runs one single-slice request over a fresh harness ({@code localDevices} x {@code peerDevices}
   * rails, {@code retryCount}) in which every rail completes with {@code status}.
   */
  private RequestResult oneSliceOverFailingRails(
      int localDevices, int peerDevices, int retryCount, int status, Op op) {
    h = new DataPathHarness(localDevices, peerDevices, SLICE, retryCount);
    h.carrier.failRails(r -> true, status);
    DataPathHarness.Span span = h.span(SLICE);
    return h.run(List.of(op.of(span.local(), 0, span.seg(), span.remote(), SLICE)))
        .requests()
        .get(0);
  }

  private void expect(ErrorCode code, String named, TransferRequest request) {
    VteException e =
        (VteException)
            Await.failure(h.submit(List.of(request), Duration.ofSeconds(5)).result(), WAIT);
    assertEquals(code, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains(named), "'" + e.getMessage() + "' names " + named);
  }
}
