package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * QP-fatal and port-down injected mid-stream with 4 devices: every request completes on the other
 * rails. {@link EngineFaultOverIbverbsTest} runs the same faults through the fake libibverbs.
 */
@ExtendWith(BlockedThreadGuard.class)
class EngineFaultTest {

  private static final long CHUNK = 4L << 20;
  private static final int CHUNKS = 8;
  private final EngineFixture fx = fixture();

  @AfterEach
  void close() {
    fx.close();
  }

  /**
   * @return the engines' fixture: soft verbs here
   */
  EngineFixture fixture() {
    return new EngineFixture();
  }

  /** Two engines, a buffer on each, a's handle on b's segment. */
  private record Pair(
      TransferEngineImpl a,
      TransferEngineImpl b,
      RegisteredBuffer local,
      RegisteredBuffer remote,
      SegmentHandle seg) {}

  private Pair pair() {
    TransferEngineImpl a = start();
    TransferEngineImpl b = start();
    return new Pair(
        a,
        b,
        fx.register(a, CHUNK * CHUNKS, 1),
        fx.register(b, CHUNK * CHUNKS, 2),
        Await.result(a.openSegment(b.serverName()), WAIT));
  }

  private TransferEngineImpl start() {
    EngineOptions o =
        fx.engineOptions(4, 2)
            .setQpTimeout(Duration.ofMillis(100))
            .setQpRetryCount(2)
            .setHandshakeDeadline(Duration.ofSeconds(5));
    return fx.start(o);
  }

  @Test
  void qpFatalAndPortDownMidStreamLoseNothing() {
    Pair p = pair();
    TransferEngineImpl a = p.a();
    TransferEngineImpl b = p.b();
    RegisteredBuffer local = p.local();
    RegisteredBuffer remote = p.remote();
    SegmentHandle seg = p.seg();

    int rounds = 12;
    int qpFaults = 0;
    for (int round = 0; round < rounds; round++) {
      EngineFixture.fill(local.address(), CHUNK * CHUNKS, 100 + round);
      List<Future<BatchResult>> batches = new ArrayList<>();
      for (int c = 0; c < CHUNKS; c++) {
        batches.add(
            a.submit(
                    List.of(
                        TransferRequest.write(
                            local, c * CHUNK, seg, remote.address() + c * CHUNK, CHUNK)),
                    new TransferOptions().setDeadline(Duration.ofSeconds(60)))
                .result());
      }
      if (round == 2) {
        fx.portDown(a, 1);
      }
      if (round >= 4 && round % 2 == 0) {
        qpFaults += fx.failOneQp(b, round / 2 % 4);
      }
      if (round == 8) {
        fx.portUp(a, 1);
      }
      for (Future<BatchResult> f : batches) {
        BatchResult r = Await.result(f, WAIT);
        assertTrue(r.allCompleted(), "round " + round + ": " + r);
      }
      assertEquals(
          -1,
          EngineFixture.mismatch(local.address(), remote.address(), CHUNK * CHUNKS),
          "round " + round);
    }
    assertTrue(qpFaults > 0, "at least one QP was failed mid-stream");
    assertEquals(
        0,
        EngineInternals.railBacklogBytes(a),
        "every slice routed to a rail was released once, retries included");
    assertTrue(
        EngineInternals.counters(a).retries() > 0,
        "failed slices were retried on other rails: " + EngineInternals.counters(a).retries());
    assertFalse(EngineInternals.contexts(a).isEmpty());
  }

  @Test
  void canceledTimedOutAndFailedSlicesLeaveNoRailBacklog() {
    Pair p = pair();
    for (int round = 0; round < 6; round++) {
      List<TransferBatch> batches = new ArrayList<>();
      for (int c = 0; c < CHUNKS; c++) {
        // Some deadlines expire while slices are queued or posted, one batch per round is canceled
        // mid-flight.
        Duration deadline = c % 3 == 0 ? Duration.ofMillis(1 + round) : Duration.ofSeconds(60);
        batches.add(
            p.a()
                .submit(
                    List.of(
                        TransferRequest.write(
                            p.local(),
                            c * CHUNK,
                            p.seg(),
                            p.remote().address() + c * CHUNK,
                            CHUNK)),
                    new TransferOptions().setDeadline(deadline)));
      }
      batches.get(1).cancel();
      if (round == 1) {
        fx.portDown(p.a(), 2);
      }
      if (round >= 2) {
        fx.failOneQp(p.b(), round % 4);
      }
      if (round == 4) {
        fx.portUp(p.a(), 2);
      }
      for (TransferBatch batch : batches) {
        Await.result(batch.result(), WAIT);
      }
      // Abandoned slices end when their owner drops or completes them, after their batch settled.
      Await.untilEquals(
          "no rail backlog after round " + round,
          WAIT,
          0L,
          () -> EngineInternals.railBacklogBytes(p.a()));
    }
  }
}
