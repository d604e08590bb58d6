package io.vte.engine.impl;

import static io.vte.engine.impl.DataPathHarness.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.RequestStatus;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Deadlines without a timer per batch: one sweep runs while batches are in flight, then stops. */
@ExtendWith(BlockedThreadGuard.class)
class DeadlineSweeperTest {

  private static final int SLICE = 64 * 1024;
  private DataPathHarness h;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void theSweepStopsWhenNothingIsInFlightAndRestartsForTheNextBatch() {
    h = new DataPathHarness(1, 1, SLICE, 4);
    DataPathHarness.Span span = h.span(SLICE);
    h.router.hold();
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
  void everyBatchOfManyInFlightExpiresOnceAndOnlyLateOnes() {
    h = new DataPathHarness(1, 1, SLICE, 4);
    DataPathHarness.Span span = h.span(SLICE);
    h.router.hold();
    BatchTracker late = h.submit(List.of(span.write(0, 0, 4096)), Duration.ofSeconds(30));
    List<BatchTracker> soon =
        java.util.stream.IntStream.range(0, 200)
            .mapToObj(i -> h.submit(List.of(span.write(0, 0, 4096)), Duration.ofMillis(50)))
            .toList();
    for (BatchTracker b : soon) {
      assertEquals(
          RequestStatus.TIMED_OUT, Await.result(b.result(), WAIT).requests().get(0).status());
    }
    assertTrue(!late.result().isComplete(), "a batch with a later deadline is still running");
    assertTrue(h.submitter.deadlineSweepArmed(), "it is in flight, so the sweep goes on");
    h.router.release();
    assertEquals(
        RequestStatus.COMPLETED, Await.result(late.result(), WAIT).requests().get(0).status());
    Await.until("then the sweep stops", WAIT, () -> !h.submitter.deadlineSweepArmed());
  }
}
