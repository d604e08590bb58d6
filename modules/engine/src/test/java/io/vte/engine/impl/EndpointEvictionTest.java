package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
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
 * Endpoint eviction under all-to-all traffic never fails a request: every owner keeps one endpoint
 * while it talks to three peers, so endpoints are evicted all the time, on both ends, while the
 * peers still use theirs; an evicted endpoint reconnects transparently (the peer learns its QP is
 * gone at the next use, not at a QP timeout) and a store full of busy endpoints admits one more
 * instead of refusing.
 */
@ExtendWith(BlockedThreadGuard.class)
class EndpointEvictionTest {

  private static final int ENGINES = 4;
  private static final int ROUNDS = 12;
  private static final int CHUNK = 16 * 1024;

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void allToAllWritesThroughAOneEndpointStoreAllCompleteByteExact() {
    List<TransferEngineImpl> engines = new ArrayList<>();
    for (int i = 0; i < ENGINES; i++) {
      EngineOptions o =
          EngineFixture.options("ev" + i, 1, 1)
              .setEndpointCacheSize(1)
              // a stale endpoint found by a QP timeout would take 2 x 300 ms and hold the peer down
              .setQpTimeout(Duration.ofMillis(300))
              .setQpRetryCount(2);
      engines.add(fx.start(o));
    }
    // engine i writes into slot i of every peer's buffer
    List<RegisteredBuffer> sources = new ArrayList<>();
    List<RegisteredBuffer> targets = new ArrayList<>();
    for (int i = 0; i < ENGINES; i++) {
      sources.add(fx.register(engines.get(i), CHUNK, i));
      targets.add(fx.register(engines.get(i), (long) CHUNK * ENGINES, 100 + i));
    }
    SegmentHandle[][] segs = new SegmentHandle[ENGINES][ENGINES];
    for (int i = 0; i < ENGINES; i++) {
      for (int j = 0; j < ENGINES; j++) {
        if (i != j) {
          segs[i][j] = Await.result(engines.get(i).openSegment(engines.get(j).serverName()), WAIT);
        }
      }
    }
    for (int round = 0; round < ROUNDS; round++) {
      List<Future<BatchResult>> batches = new ArrayList<>();
      for (int i = 0; i < ENGINES; i++) {
        EngineFixture.fill(sources.get(i).address(), CHUNK, round * 31L + i);
        for (int j = 0; j < ENGINES; j++) {
          if (i != j) {
            long at = targets.get(j).address() + (long) CHUNK * i;
            batches.add(
                engines
                    .get(i)
                    .submit(
                        List.of(TransferRequest.write(sources.get(i), 0, segs[i][j], at, CHUNK)),
                        new TransferOptions().setDeadline(Duration.ofSeconds(60)))
                    .result());
          }
        }
      }
      for (Future<BatchResult> f : batches) {
        BatchResult r = Await.result(f, WAIT);
        assertTrue(r.allCompleted(), "round " + round + ": " + r);
      }
      for (int i = 0; i < ENGINES; i++) {
        for (int j = 0; j < ENGINES; j++) {
          if (i != j) {
            long at = targets.get(j).address() + (long) CHUNK * i;
            assertEquals(
                -1,
                EngineFixture.mismatch(sources.get(i).address(), at, CHUNK),
                "round " + round + ": " + i + " -> " + j);
          }
        }
      }
    }
    long evicted = 0;
    long failed = 0;
    for (TransferEngineImpl e : engines) {
      evicted += e.diagnostics().owners().endpointsEvicted();
      failed += e.diagnostics().owners().handshakesFailed();
    }
    assertTrue(evicted >= ROUNDS, "endpoints were evicted under traffic: " + evicted);
    assertEquals(0, failed, "no handshake failed");
  }
}
