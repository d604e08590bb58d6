package io.vte.engine.impl.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.EngineFixture;
import io.vte.engine.impl.EngineInternals;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The same-host rail keeps the engine's semantics: a copy stalled on the rail ends at its deadline
 * (TIMED_OUT) or at a cancel (CANCELED) with the owners' event loops live meanwhile, and ranges
 * outside the peer's published buffer are refused with OUT_OF_RANGE before anything moves. The
 * copiers are stalled by holding this JVM's revocation lock of the file, as a revoking owner does.
 */
@ExtendWith(BlockedThreadGuard.class)
class SharedMemoryRailSemanticsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int LENGTH = 1 << 20;

  private final EngineFixture fx = new EngineFixture();
  private TransferEngineImpl requester;
  private RegisteredBuffer remote;
  private RegisteredBuffer local;
  private SegmentHandle seg;
  private String path;

  @BeforeEach
  void setUp() {
    TransferEngineImpl owner = fx.start(Vertx.vertx(), options("semo"));
    requester = fx.start(Vertx.vertx(), options("semr"));
    remote = Await.result(owner.allocate(LENGTH, "cpu:0"), WAIT);
    long address = fx.allocate(LENGTH);
    // every copy of this test, stalled or not, carries these same bytes
    EngineFixture.fill(address, LENGTH, 77);
    local = Await.result(requester.register(address, LENGTH, "cpu:0"), WAIT);
    seg = Await.result(requester.openSegment(owner.serverName()), WAIT);
    path = ((LocalBuffer) remote).sharedMemory().path().toString();
    assertEquals(RequestStatus.COMPLETED, status(run(write(), new TransferOptions())));
    assertEquals(
        LENGTH, EngineInternals.sharedMemoryRail(requester).copiedBytes(), "the rail carries it");
  }

  @AfterEach
  void close() {
    fx.close();
  }

  private static EngineOptions options(String device) {
    return new EngineOptions().setDevices(List.of(device + "@127.0.0.1")).setRpcHost("127.0.0.1");
  }

  private TransferRequest write() {
    return TransferRequest.write(local, 0, seg, remote.address(), LENGTH);
  }

  private BatchResult run(TransferRequest request, TransferOptions options) {
    return Await.result(requester.submit(List.of(request), options).result(), WAIT);
  }

  private static RequestStatus status(BatchResult r) {
    return r.requests().get(0).status();
  }

  @Test
  void aStalledCopyEndsAtItsDeadlineOrItsCancelAndTheRailGoesOnAfterwards() {
    Lock revoking = CopierLocks.lockOf(path).writeLock();
    revoking.lock();
    TransferBatch cancelled;
    try {
      for (int round = 0; round < 5; round++) {
        BatchResult late = run(write(), new TransferOptions().setDeadline(Duration.ofMillis(200)));
        RequestResult r = late.requests().get(0);
        assertEquals(RequestStatus.TIMED_OUT, r.status(), "round " + round + ": " + late);
        assertEquals(ErrorCode.TIMED_OUT, r.cause().code(), late.toString());
      }
      cancelled = requester.submit(List.of(write()), new TransferOptions());
      assertFalse(cancelled.result().isComplete(), "a stalled copy cannot complete");
      cancelled.cancel();
      BatchResult r = Await.result(cancelled.result(), WAIT);
      assertEquals(RequestStatus.CANCELED, status(r), r.toString());
      assertEquals(
          LENGTH,
          EngineInternals.sharedMemoryRail(requester).copiedBytes(),
          "no stalled copy ended meanwhile");
    } finally {
      revoking.unlock();
    }
    BatchResult after = run(write(), new TransferOptions());
    assertEquals(RequestStatus.COMPLETED, status(after), after.toString());
    assertEquals(-1, EngineFixture.mismatch(local.address(), remote.address(), LENGTH));
    assertTrue(
        requester.diagnostics().rails().stream()
            .anyMatch(
                l -> l.localDevice().equals("shm") && !l.heldDown() && l.lastFailure() == null),
        "a stall is no failure: the rail is not held down " + requester.diagnostics().rails());
    Await.until(
        "the slices stalled inside the copiers land once the lock is free (the rest were dropped)",
        WAIT,
        () -> EngineInternals.sharedMemoryRail(requester).copiedBytes() > 2L * LENGTH);
  }

  @Test
  void rangesOutsideThePeersBufferAreRefusedBeforeAnythingMoves() {
    long copied = EngineInternals.sharedMemoryRail(requester).copiedBytes();
    List<TransferRequest> bad =
        List.of(
            TransferRequest.write(local, 0, seg, remote.address() + LENGTH - 100, 4096),
            TransferRequest.read(local, 0, seg, remote.address() - 4096, 4096),
            TransferRequest.write(local, 0, seg, remote.address() + LENGTH, 1));
    for (TransferRequest request : bad) {
      Throwable failure =
          Await.failure(requester.submit(List.of(request), new TransferOptions()).result(), WAIT);
      assertEquals(
          ErrorCode.OUT_OF_RANGE, ((VteException) failure).code(), request + ": " + failure);
      assertTrue(failure.getMessage().contains("remote range"), failure.getMessage());
    }
    assertEquals(
        copied, EngineInternals.sharedMemoryRail(requester).copiedBytes(), "nothing was copied");
  }
}
