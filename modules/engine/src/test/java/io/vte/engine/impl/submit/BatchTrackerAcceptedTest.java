package io.vte.engine.impl.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A batch's "accepted" future is made only when asked for, yet settles however its asking races
 * with the batch's start or rejection.
 */
class BatchTrackerAcceptedTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void tearDown() {
    Await.result(vertx.close(), Duration.ofSeconds(10));
  }

  @Test
  void askedBeforeTheStartItCompletesWithIt() {
    BatchTracker batch = new BatchTracker(new CallerContexts(vertx), b -> {});
    Future<Void> accepted = batch.accepted();
    assertFalse(accepted.isComplete(), "not started yet");
    batch.start(new TransferTracker[0], new ArrayList<>());
    assertTrue(accepted.succeeded());
    assertSame(accepted, batch.accepted(), "one future per batch");
  }

  @Test
  void askedAfterARejectionItFailsWithItsCause() {
    BatchTracker batch = new BatchTracker(new CallerContexts(vertx), b -> {});
    VteException cause = new VteException(ErrorCode.INVALID_ARGUMENT, "bad request 0");
    batch.reject(cause);
    Future<Void> accepted = batch.accepted();
    assertTrue(accepted.failed());
    assertSame(cause, accepted.cause());
  }

  @Test
  void askedWhileAnotherThreadStartsOrRejectsItAlwaysSettles() throws Exception {
    CyclicBarrier barrier = new CyclicBarrier(2);
    for (int i = 0; i < 2000; i++) {
      BatchTracker batch = new BatchTracker(new CallerContexts(vertx), b -> {});
      boolean rejects = i % 2 == 1;
      VteException cause = new VteException(ErrorCode.ENGINE_CLOSED, "closed " + i);
      Thread other =
          new Thread(
              () -> {
                await(barrier);
                if (rejects) {
                  batch.reject(cause);
                } else {
                  batch.start(new TransferTracker[0], new ArrayList<>());
                }
              });
      other.start();
      await(barrier);
      Future<Void> accepted = batch.accepted();
      other.join();
      assertTrue(accepted.isComplete(), "round " + i + " left the future pending");
      assertEquals(!rejects, accepted.succeeded(), "round " + i);
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
