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
    try (EnginePair p = new EnginePair()) {
      TransferEngine a = p.start(p.va, "oa", 1);
      TransferEngine b = p.start(p.vb, "ob", 1);
      p.twentyWrites(a, b).forEach(f -> assertTrue(Await.result(f, WAIT).allCompleted()));
      if (engineFirst) {
        Await.result(a.close(), WAIT);
        Await.result(b.close(), WAIT);
        Await.result(p.va.close(), WAIT);
        Await.result(p.vb.close(), WAIT);
      } else {
        Await.result(p.va.close(), WAIT);
        Await.result(p.vb.close(), WAIT);
        Await.result(a.close(), WAIT); // a no-op: the close hook closed it
        Await.result(b.close(), WAIT);
        assertEquals(
            ErrorCode.ENGINE_CLOSED,
            ((io.vte.api.VteException) Await.failure(a.openSegment(b.serverName()), WAIT)).code(),
            "closed with its Vert.x");
      }
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
    try (EnginePair p = new EnginePair()) {
      EngineVerticle host = new EngineVerticle();
      Await.result(p.va.deployVerticle(host), WAIT);
      TransferEngine a = host.engine;
      TransferEngine b = p.start(p.vb, "vb", 2);
      List<Future<BatchResult>> results = p.twentyWrites(a, b);
      Await.result(p.va.close(), WAIT);
      endedByClose(results);
      Await.result(b.close(), WAIT);
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
    try (EnginePair p = new EnginePair()) {
      TransferEngine a = p.start(p.va, "ca", 2);
      TransferEngine b = p.start(p.vb, "cb", 2);
      List<Future<BatchResult>> results = p.twentyWrites(a, b);
      if (!closeMidStream) {
        results.forEach(f -> assertTrue(Await.result(f, WAIT).allCompleted()));
      }
      Await.result(a.close(), WAIT);
      int closed = endedByClose(results);
      assertTrue(!closeMidStream || closed > 0, "close interrupted some transfers");
      Await.result(b.close(), WAIT);
    }
  }

  /**
   * The set-up every case shares: two Vert.x instances, {@code va} for the writing engine and
   * {@code vb} for its peer, and {@link #SIZE} bytes of native memory for each. Closing closes both
   * Vert.x instances (again, when a case closed them already) and frees the memory.
   */
  private static final class EnginePair implements AutoCloseable {
    final Vertx va = Vertx.vertx();
    final Vertx vb = Vertx.vertx();
    final long la = DirectMemory.allocate(SIZE);
    final long lb = DirectMemory.allocate(SIZE);

    /** Starts an engine of two soft devices on {@code vertx}. */
    TransferEngine start(Vertx vertx, String prefix, int workers) {
      return Await.result(
          TransferEngine.create(vertx, EngineFixture.options(prefix, 2, workers)), WAIT);
    }

    /**
     * Registers {@code la} on {@code a} and {@code lb} on {@code b}, then submits 20 WRITEs of all
     * of it from a to b.
     */
    List<Future<BatchResult>> twentyWrites(TransferEngine a, TransferEngine b) {
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

    @Override
    public void close() {
      try {
        Await.result(va.close(), WAIT);
        Await.result(vb.close(), WAIT);
      } finally {
        DirectMemory.free(la);
        DirectMemory.free(lb);
      }
    }
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
