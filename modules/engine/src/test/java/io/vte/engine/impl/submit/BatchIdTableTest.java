package io.vte.engine.impl.submit;

import static io.vte.engine.impl.submit.DataPathHarness.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.TaskState;
import io.vte.api.TaskStatus;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.WcStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BlockedThreadGuard.class)
class BatchIdTableTest {

  private static final int SLICE = 4096;
  private final DataPathHarness h = new DataPathHarness(2, 2, SLICE, 1);
  private final BatchIdTable table = new BatchIdTable();

  @AfterEach
  void close() {
    h.close();
  }

  private io.vertx.core.Future<Void> submit(long id, List<TransferRequest> requests) {
    return table.submit(
        id,
        requests,
        r ->
            h.submitter.submitTracked(
                r, new TransferOptions().setDeadline(Duration.ofSeconds(30))));
  }

  @Test
  void lifecycleAllocateSubmitPollFree() {
    LocalBuffer local = h.register(16L * SLICE, 1);
    long remote = h.peerBuffer(16L * SLICE, 2);
    h.publish();
    PeerSegment seg = h.open();
    long id = table.allocate(3);
    assertEquals(TaskState.WAITING, table.batchStatus(id));
    assertEquals(TaskState.WAITING, table.status(id, 2).state());

    h.carrier.hold();
    Await.result(
        submit(
            id,
            List.of(
                TransferRequest.write(local, 0, seg, remote, 8L * SLICE),
                TransferRequest.write(local, 8L * SLICE, seg, remote + 8L * SLICE, 8L * SLICE))),
        WAIT);
    assertEquals(TaskState.PENDING, table.batchStatus(id));
    assertEquals(TaskState.PENDING, table.status(id, 1).state());
    assertEquals(TaskState.WAITING, table.status(id, 2).state());
    VteException busy = assertThrows(VteException.class, () -> table.free(id));
    assertEquals(ErrorCode.BATCH_BUSY, busy.code());
    assertTrue(busy.getMessage().contains("2 unfinished"), busy.getMessage());

    VteException full =
        (VteException)
            Await.failure(
                submit(
                    id,
                    List.of(
                        TransferRequest.write(local, 0, seg, remote, 1),
                        TransferRequest.write(local, 0, seg, remote, 1))),
                WAIT);
    assertEquals(ErrorCode.BATCH_BUSY, full.code());

    h.carrier.release();
    Await.untilEquals("batch completes", WAIT, TaskState.COMPLETED, () -> table.batchStatus(id));
    TaskStatus t0 = table.status(id, 0);
    assertEquals(8L * SLICE, t0.bytes());
    assertTrue(DataPathHarness.equal(local.address(), remote, 16L * SLICE));

    h.carrier.failRails(r -> true, WcStatus.REM_ACCESS_ERR.code());
    Await.result(submit(id, List.of(TransferRequest.write(local, 0, seg, remote, 1))), WAIT);
    Await.untilEquals(
        "third task fails", WAIT, TaskState.FAILED, () -> table.status(id, 2).state());
    assertEquals(ErrorCode.REMOTE_ACCESS_DENIED, table.status(id, 2).cause().code());
    assertEquals(TaskState.FAILED, table.batchStatus(id));
    table.free(id);
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        assertThrows(VteException.class, () -> table.batchStatus(id)).code());
  }

  @Test
  void badIdsIndexesAndInputAreTyped() {
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        assertThrows(VteException.class, () -> table.allocate(0)).code());
    assertEquals(
        ErrorCode.INVALID_ARGUMENT, assertThrows(VteException.class, () -> table.free(42)).code());
    long id = table.allocate(1);
    VteException e = assertThrows(VteException.class, () -> table.status(id, 1));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("task index 1"), e.getMessage());
    LocalBuffer local = h.register(SLICE, 1);
    long remote = h.peerBuffer(SLICE, 2);
    h.publish();
    VteException bad =
        (VteException)
            Await.failure(
                submit(id, List.of(TransferRequest.write(local, 0, h.open(), remote, 0))), WAIT);
    assertEquals(ErrorCode.INVALID_ARGUMENT, bad.code());
    assertEquals(TaskState.FAILED, table.status(id, 0).state());
    assertEquals(ErrorCode.INVALID_ARGUMENT, table.status(id, 0).cause().code());
    table.free(id);
  }
}
