package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A request pinned to one rail ({@link TransferOptions#setRail}) travels that rail only, and fails
 * typed instead of moving to another rail when that one cannot carry it.
 */
@ExtendWith(BlockedThreadGuard.class)
class RailPinTest {

  private static final int LENGTH = 256 << 10;

  @Test
  void aPinnedRequestTakesItsRailOnlyAndFailsTypedWhenTheRailIsDown() throws Exception {
    try (EngineFixture f = new EngineFixture()) {
      TransferEngineImpl initiator = f.start(2, 1);
      TransferEngineImpl target = f.start(2, 1);
      RegisteredBuffer local = f.register(initiator, LENGTH, 1);
      RegisteredBuffer remote = f.register(target, LENGTH, 2);
      SegmentHandle segment = Await.result(initiator.openSegment(target.serverName()), WAIT);
      String l0 = EngineInternals.contexts(initiator).get(0).deviceName();
      String l1 = EngineInternals.contexts(initiator).get(1).deviceName();
      String r0 = segment.devices().get(0).name();
      String r1 = segment.devices().get(1).name();
      // 256 KiB is four slices: unpinned, they would spread over the four rails
      for (String[] rail : List.of(new String[] {l1, r0}, new String[] {l0, r1})) {
        long before = moved(initiator, rail[0], rail[1]);
        long elsewhere = movedTotal(initiator) - before;
        RequestResult ok = write(initiator, local, segment, remote, rail[0], rail[1]);
        assertEquals(RequestStatus.COMPLETED, ok.status(), String.valueOf(ok.cause()));
        assertEquals(before + LENGTH, moved(initiator, rail[0], rail[1]), "on the pinned rail");
        assertEquals(
            elsewhere, movedTotal(initiator) - moved(initiator, rail[0], rail[1]), "elsewhere");
      }

      RequestResult unknown = write(initiator, local, segment, remote, l0, "nope");
      assertEquals(ErrorCode.INVALID_ARGUMENT, unknown.cause().code(), unknown.toString());
      assertTrue(unknown.cause().getMessage().contains("nope"), unknown.cause().getMessage());

      f.portDown(initiator, 1);
      Await.until(
          "the initiator sees its port down",
          WAIT,
          () ->
              initiator.diagnostics().rails().stream()
                  .noneMatch(r -> r.localDevice().equals(l1) && r.localPortUp()));
      long total = movedTotal(initiator);
      RequestResult down = write(initiator, local, segment, remote, l1, r0);
      assertEquals(RequestStatus.FAILED, down.status());
      assertEquals(ErrorCode.NO_RAIL, down.cause().code(), down.cause().getMessage());
      assertTrue(
          down.cause().getMessage().contains("port of local device " + l1 + " is down"),
          down.cause().getMessage());
      assertEquals(total, movedTotal(initiator), "no other rail carried the pinned request");
      assertEquals(
          RequestStatus.COMPLETED,
          write(initiator, local, segment, remote, l0, r0).status(),
          "the healthy rail still carries a pinned request");
    }
  }

  @Test
  void aRailNeedsTwoDeviceNames() {
    VteException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            VteException.class, () -> new TransferOptions().setRail("soft0", ""));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("'soft0' -> ''"), e.getMessage());
    assertNull(new TransferOptions().getRailLocalDevice());
  }

  private static RequestResult write(
      TransferEngineImpl engine,
      RegisteredBuffer local,
      SegmentHandle segment,
      RegisteredBuffer remote,
      String localDevice,
      String remoteDevice) {
    BatchResult result =
        Await.result(
            engine
                .submit(
                    List.of(TransferRequest.write(local, 0, segment, remote.address(), LENGTH)),
                    new TransferOptions()
                        .setDeadline(Duration.ofSeconds(20))
                        .setRail(localDevice, remoteDevice))
                .result(),
            WAIT);
    return result.requests().get(0);
  }

  private static long moved(TransferEngineImpl engine, String local, String remote) {
    return engine.diagnostics().rails().stream()
        .filter(r -> r.localDevice().equals(local) && r.peerDevice().equals(remote))
        .mapToLong(RailStatus::movedBytes)
        .sum();
  }

  private static long movedTotal(TransferEngineImpl engine) {
    return engine.diagnostics().rails().stream().mapToLong(RailStatus::movedBytes).sum();
  }
}
