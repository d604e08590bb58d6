package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An endpoint unused for {@code idleEndpointMs} is retired on its owner and reconnected
 * transparently, from either end: engine A retires its endpoints after 200 ms, engine B never, so
 * B's next write goes through an endpoint whose peer QP is gone.
 */
@ExtendWith(BlockedThreadGuard.class)
class IdleEndpointRetireTest {

  private static final int CHUNK = 64 * 1024;

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  @Test
  void anIdleRetiredEndpointReconnectsTransparentlyFromBothEnds() {
    TransferEngineImpl a =
        fx.start(EngineFixture.options("idle-a", 1, 1).setIdleEndpoint(Duration.ofMillis(200)));
    TransferEngineImpl b =
        fx.start(EngineFixture.options("idle-b", 1, 1).setIdleEndpoint(Duration.ZERO));
    RegisteredBuffer aBuf = fx.register(a, 2L * CHUNK, 1);
    RegisteredBuffer bBuf = fx.register(b, 2L * CHUNK, 2);
    SegmentHandle toB = Await.result(a.openSegment(b.serverName()), WAIT);
    SegmentHandle toA = Await.result(b.openSegment(a.serverName()), WAIT);

    write(a, aBuf, toB, bBuf, 11);
    assertTrue(b.diagnostics().owners().endpointsAlive() > 0);
    Await.until(
        "A retired its unused endpoint",
        WAIT,
        () -> a.diagnostics().owners().endpointsAlive() == 0);
    long retired = a.diagnostics().owners().endpointsRetired();
    assertTrue(retired >= 1, "retired " + retired);
    assertTrue(b.diagnostics().owners().endpointsAlive() > 0, "B keeps its end (never retires)");

    write(b, bBuf, toA, aBuf, 22);
    write(a, aBuf, toB, bBuf, 33);
    assertEquals(0, a.diagnostics().owners().handshakesFailed());
    assertEquals(0, b.diagnostics().owners().handshakesFailed());
  }

  /** Writes the first chunk of {@code from} into the second chunk of {@code to}, byte-exact. */
  private static void write(
      TransferEngineImpl e,
      RegisteredBuffer from,
      SegmentHandle seg,
      RegisteredBuffer to,
      long seed) {
    EngineFixture.fill(from.address(), CHUNK, seed);
    BatchResult r =
        Await.result(
            e.submit(
                    List.of(TransferRequest.write(from, 0, seg, to.address() + CHUNK, CHUNK)),
                    new TransferOptions().setDeadline(Duration.ofSeconds(30)))
                .result(),
            WAIT);
    assertTrue(r.allCompleted(), r.toString());
    assertEquals(-1, EngineFixture.mismatch(from.address(), to.address() + CHUNK, CHUNK));
  }
}
