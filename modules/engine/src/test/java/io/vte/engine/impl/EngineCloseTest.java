package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** close() with transfers in flight: every Future completes and nothing is left behind. */
@ExtendWith(BlockedThreadGuard.class)
class EngineCloseTest {

  private static final long SIZE = 16L << 20;

  @Test
  void closeWithTransfersInFlightCompletesEverythingAndLeaksNothing() {
    cycle(false); // warm up: classes and jars opened once
    ResourceSnapshot before = ResourceSnapshot.take();
    for (int i = 0; i < 3; i++) {
      cycle(true);
    }
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(30));
  }

  /**
   * Either close order releases everything: the engine first, then Vert.x; or Vert.x first (its
   * close hook closes the engine), after which the engine's close() is a no-op that succeeds.
   */
  @Test
  void eitherCloseOrderLeavesNoThreadOrSocket() {
    closeInOrder(true); // warm up
    ResourceSnapshot before = ResourceSnapshot.take();
    for (int i = 0; i < 2; i++) {
      closeInOrder(true);
      closeInOrder(false);
    }
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(30));
  }

  private static void closeInOrder(boolean engineFirst) {
    Vertx va = Vertx.vertx();
    Vertx vb = Vertx.vertx();
    long la = DirectMemory.allocate(SIZE);
    long lb = DirectMemory.allocate(SIZE);
    try {
      TransferEngine a =
          Await.result(TransferEngine.create(va, EngineFixture.options("oa", 2, 1)), WAIT);
      TransferEngine b =
          Await.result(TransferEngine.create(vb, EngineFixture.options("ob", 2, 1)), WAIT);
      twentyWrites(a, la, b, lb).forEach(f -> assertTrue(Await.result(f, WAIT).allCompleted()));
      if (engineFirst) {
        Await.result(a.close(), WAIT);
        Await.result(b.close(), WAIT);
        Await.result(va.close(), WAIT);
        Await.result(vb.close(), WAIT);
      } else {
        Await.result(va.close(), WAIT);
        Await.result(vb.close(), WAIT);
        Await.result(a.close(), WAIT); // a no-op: the close hook closed it
        Await.result(b.close(), WAIT);
        assertEquals(
            ErrorCode.ENGINE_CLOSED,
            ((io.vte.api.VteException) Await.failure(a.openSegment(b.serverName()), WAIT)).code(),
            "closed with its Vert.x");
      }
    } finally {
      DirectMemory.free(la);
      DirectMemory.free(lb);
    }
  }

  /**
   * An engine owned by a verticle (created in start, closed in stop) when Vert.x itself closes:
   * Vert.x stops the engine's owner verticles together with (or before) that verticle, so the
   * owners must end the slices they hold themselves. Nothing may hang and every transfer must end,
   * once.
   */
  @Test
  void vertxCloseWithTheEngineOpenInAVerticleEndsEveryTransfer() {
    Vertx va = Vertx.vertx();
    Vertx vb = Vertx.vertx();
    long la = DirectMemory.allocate(SIZE);
    long lb = DirectMemory.allocate(SIZE);
    try {
      EngineVerticle host = new EngineVerticle();
      Await.result(va.deployVerticle(host), WAIT);
      TransferEngine a = host.engine;
      TransferEngine b =
          Await.result(TransferEngine.create(vb, EngineFixture.options("vb", 2, 2)), WAIT);
      List<Future<BatchResult>> results = twentyWrites(a, la, b, lb);
      Await.result(va.close(), WAIT);
      endedByClose(results);
      Await.result(b.close(), WAIT);
    } finally {
      Await.result(vb.close(), WAIT);
      DirectMemory.free(la);
      DirectMemory.free(lb);
    }
  }

  /** Creates its engine in start and closes it in stop, the way an application verticle would. */
  private static final class EngineVerticle extends VerticleBase {
    TransferEngine engine;

    @Override
    public Future<?> start() {
      return TransferEngine.create(vertx, EngineFixture.options("va", 2, 2))
          .onSuccess(e -> engine = e);
    }

    @Override
    public Future<?> stop() {
      return engine.close();
    }
  }

  private static void cycle(boolean closeMidStream) {
    Vertx va = Vertx.vertx();
    Vertx vb = Vertx.vertx();
    long la = DirectMemory.allocate(SIZE);
    long lb = DirectMemory.allocate(SIZE);
    try {
      TransferEngine a =
          Await.result(TransferEngine.create(va, EngineFixture.options("ca", 2, 2)), WAIT);
      TransferEngine b =
          Await.result(TransferEngine.create(vb, EngineFixture.options("cb", 2, 2)), WAIT);
      List<Future<BatchResult>> results = twentyWrites(a, la, b, lb);
      if (!closeMidStream) {
        results.forEach(f -> assertTrue(Await.result(f, WAIT).allCompleted()));
      }
      Await.result(a.close(), WAIT);
      int closed = endedByClose(results);
      assertTrue(!closeMidStream || closed > 0, "close interrupted some transfers");
      Await.result(b.close(), WAIT);
    } finally {
      Await.result(va.close(), WAIT);
      Await.result(vb.close(), WAIT);
      DirectMemory.free(la);
      DirectMemory.free(lb);
    }
  }

  /**
   * Registers {@code la} on {@code a} and {@code lb} on {@code b}, then submits 20 WRITEs of all of
   * it from a to b.
   */
  private static List<Future<BatchResult>> twentyWrites(
      TransferEngine a, long la, TransferEngine b, long lb) {
    RegisteredBuffer local = Await.result(a.register(la, SIZE, "cpu:0"), WAIT);
    RegisteredBuffer remote = Await.result(b.register(lb, SIZE, "cpu:0"), WAIT);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    List<Future<BatchResult>> results = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      results.add(
          a.submit(
                  List.of(TransferRequest.write(local, 0, seg, remote.address(), SIZE)),
                  new TransferOptions())
              .result());
    }
    return results;
  }

  /**
   * Asserts that every transfer ended, completed or failed with ENGINE_CLOSED; returns how many
   * failed.
   */
  private static int endedByClose(List<Future<BatchResult>> results) {
    int closed = 0;
    for (Future<BatchResult> f : results) {
      RequestResult r = Await.result(f, WAIT).requests().get(0);
      if (r.status() != RequestStatus.COMPLETED) {
        assertEquals(RequestStatus.FAILED, r.status(), r.toString());
        assertEquals(ErrorCode.ENGINE_CLOSED, r.cause().code(), r.toString());
        closed++;
      }
    }
    return closed;
  }
}
