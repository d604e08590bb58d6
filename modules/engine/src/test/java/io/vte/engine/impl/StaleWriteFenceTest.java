package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.impl.SoftDevice;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A WRITE retried on another rail after its QP failed must not land later over a newer WRITE to the
 * same address. Engine A (1 device) writes to engine B (2 devices). B's device 0 NIC is held
 * ({@code stallNic}), so a slice of W1 (pattern A) posted on the rail to it waits unread in B's
 * socket while A's QP times out; W1 completes through device 1, then W2 (pattern B, same range)
 * completes; then B's NIC is released and reads its sockets to their end. The range must hold B:
 * without the fence before the retry (B retires its end of the connection first), B's NIC executed
 * the stale slice of W1 over it.
 */
@ExtendWith(BlockedThreadGuard.class)
class StaleWriteFenceTest {

  private static final int SLICE = 64 * 1024;
  private static final long RANGE = 8L * SLICE;
  private static final int ROUNDS = 6;

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  private EngineOptions options(int devices) {
    return fx.engineOptions(devices, 1)
        .setSliceSize(SLICE)
        .setQpTimeout(Duration.ofMillis(50))
        .setQpRetryCount(1)
        .setRailHoldDown(Duration.ofMillis(300));
  }

  @Test
  void aWriteStuckAtAStalledPeerNicNeverLandsOverANewerWrite() throws Exception {
    TransferEngineImpl a = fx.start(options(1));
    TransferEngineImpl b = fx.start(options(2));
    // A: [pattern A][pattern B][read-back]; B: [the range][warm-up range]
    RegisteredBuffer local = fx.register(a, 3 * RANGE, 1);
    RegisteredBuffer remote = fx.register(b, 2 * RANGE, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    String stalled = EngineFixture.context(b, 0).deviceName();
    SoftDevice stalledDevice = (SoftDevice) EngineFixture.context(b, 0).device();
    SoftVerbsProvider provider = (SoftVerbsProvider) EngineInternals.provider(b);
    TransferOptions deadline = new TransferOptions().setDeadline(Duration.ofSeconds(30));

    for (int round = 0; round < ROUNDS; round++) {
      warmUpRailTo(a, local, seg, remote, stalled, deadline);
      long fences = fencesAsked(a);
      EngineFixture.fill(local.address(), RANGE, 1000 + round);
      EngineFixture.fill(local.address() + RANGE, RANGE, 2000 + round);

      provider.faults().stallNic(stalled).toCompletableFuture().get(20, TimeUnit.SECONDS);
      try {
        assertCompleted(
            "W1",
            a.submit(
                    List.of(TransferRequest.write(local, 0, seg, remote.address(), RANGE)),
                    deadline)
                .result());
        assertTrue(
            fencesAsked(a) > fences,
            "round " + round + ": a slice of W1 was stuck on the rail to " + stalled);
        assertCompleted(
            "W2",
            a.submit(
                    List.of(TransferRequest.write(local, RANGE, seg, remote.address(), RANGE)),
                    deadline)
                .result());
      } finally {
        provider.faults().releaseNic(stalled);
      }
      Await.untilEquals(
          "B's " + stalled + " read its sockets to their end",
          WAIT,
          0,
          stalledDevice::openConnections);
      assertEquals(
          -1,
          EngineFixture.mismatch(local.address() + RANGE, remote.address(), RANGE),
          "round " + round + ": B's memory holds W2's bytes, not a stale slice of W1");
      assertCompleted(
          "the READ",
          a.submit(
                  List.of(TransferRequest.read(local, 2 * RANGE, seg, remote.address(), RANGE)),
                  deadline)
              .result());
      assertEquals(
          -1,
          EngineFixture.mismatch(local.address() + RANGE, local.address() + 2 * RANGE, RANGE),
          "round " + round + ": the READ returns W2's bytes");
    }
  }

  /**
   * Writes the warm-up range until the rail to {@code device} moved bytes: its hold-down from the
   * last round is over and its connection is up.
   */
  private static void warmUpRailTo(
      TransferEngineImpl a,
      RegisteredBuffer local,
      SegmentHandle seg,
      RegisteredBuffer remote,
      String device,
      TransferOptions deadline) {
    long before = movedTo(a, device);
    Await.until(
        "the rail to " + device + " carries slices again",
        WAIT,
        () -> {
          assertCompleted(
              "a warm-up WRITE",
              a.submit(
                      List.of(
                          TransferRequest.write(
                              local, 2 * RANGE, seg, remote.address() + RANGE, RANGE)),
                      deadline)
                  .result());
          return movedTo(a, device) > before;
        });
  }

  private static long movedTo(TransferEngineImpl a, String device) {
    return a.diagnostics().rails().stream()
        .filter(r -> r.peerDevice().equals(device))
        .mapToLong(RailStatus::movedBytes)
        .sum();
  }

  private static long fencesAsked(TransferEngineImpl engine) {
    long n = 0;
    for (LocalContext ctx : EngineInternals.contexts(engine)) {
      for (int i = 0; i < ctx.ownerCount(); i++) {
        n += ctx.ownerMetrics(i).writeFencesAsked();
      }
    }
    return n;
  }

  private static void assertCompleted(String what, io.vertx.core.Future<BatchResult> batch) {
    BatchResult r = Await.result(batch, WAIT);
    assertTrue(r.allCompleted(), what + ": " + r);
  }
}
