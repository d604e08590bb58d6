package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.PeerDeviceStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.TimingTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two engines on soft verbs at the default QP timeout: once A has written to B, A watches B's
 * device states. B's port going down is held down in A's rail selection within 100 ms, and B's
 * shutdown too; after it comes back A's slices use it again (the revert of 4284e70: a device called
 * down was never set back). Every cycle is checked on the data path: writes complete and land.
 */
@ExtendWith(BlockedThreadGuard.class)
class PushedDeviceStatesTest {

  private static final int LENGTH = 1 << 20;
  private static final long PUSH_TARGET_NANOS = Duration.ofMillis(100).toNanos();

  @Test
  void aPeersPortDownAndUpReachRailSelectionWithin100msAndSlicesComeBack() throws Exception {
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(fx.engineOptions(2, 1));
      TransferEngineImpl b = fx.start(fx.engineOptions(2, 1));
      RegisteredBuffer src = fx.register(a, LENGTH, 1);
      RegisteredBuffer dst = fx.register(b, LENGTH, 2);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), EngineFixture.WAIT);
      write(a, src, seg, dst);
      Await.until(
          "A watches B",
          EngineFixture.WAIT,
          () -> a.diagnostics().peerDevices().watchedPeers() == 1);
      assertEquals(1, b.diagnostics().peerDevices().watchers());
      TimingTargets.retryOnce(
          "pushed port down",
          attempt -> {
            List<String> missed = new ArrayList<>();
            for (int cycle = 0; cycle < 5; cycle++) {
              long down = System.nanoTime();
              fx.portDown(b, 0);
              Await.until(
                  "A holds B's d0 down",
                  EngineFixture.WAIT,
                  () -> a.diagnostics().peerDevices().devicesHeldByPeers() == 1);
              long took = System.nanoTime() - down;
              if (took > PUSH_TARGET_NANOS) {
                missed.add("cycle " + cycle + ": " + took / 1_000_000 + " ms");
              }
              write(a, src, seg, dst);
              fx.portUp(b, 0);
              Await.until(
                  "A releases B's d0",
                  EngineFixture.WAIT,
                  () -> a.diagnostics().peerDevices().devicesHeldByPeers() == 0);
              long moved = movedTo(a, "d0");
              Await.until(
                  "slices use B's d0 again",
                  EngineFixture.WAIT,
                  () -> {
                    write(a, src, seg, dst);
                    return movedTo(a, "d0") > moved;
                  });
            }
            return missed;
          });
      PeerDeviceStatus heard = a.diagnostics().peerDevices();
      assertTrue(heard.pushedHoldDowns() >= 5, heard.toString());
      long shut = System.nanoTime();
      Await.result(b.close(), EngineFixture.WAIT);
      Await.until(
          "B's shutdown holds every device of B down in A",
          EngineFixture.WAIT,
          () -> a.diagnostics().peerDevices().devicesHeldByPeers() == 2);
      assertTrue(
          System.nanoTime() - shut < EngineFixture.WAIT.toNanos(), "shutdown heard before close");
    }
  }

  private static void write(
      TransferEngineImpl a, RegisteredBuffer src, SegmentHandle seg, RegisteredBuffer dst) {
    BatchResult r =
        Await.result(
            a.submit(
                    List.of(TransferRequest.write(src, 0, seg, dst.address(), LENGTH)),
                    new TransferOptions().setDeadline(Duration.ofSeconds(30)))
                .result(),
            EngineFixture.WAIT);
    assertTrue(r.allCompleted(), r.toString());
    assertEquals(-1, EngineFixture.mismatch(src.address(), dst.address(), LENGTH), "bytes landed");
  }

  /** Bytes A moved on rails to B's device whose name ends with {@code device}. */
  private static long movedTo(TransferEngineImpl a, String device) {
    return a.diagnostics().rails().stream()
        .filter(r -> r.peerDevice().endsWith(device))
        .mapToLong(r -> r.movedBytes())
        .sum();
  }
}
