package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.FaultInjector;
import io.vte.api.Integrity;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * End-to-end integrity ({@code integrity: crc32c}) against injected corruption: bits flipped on the
 * soft-verbs wire after the sender's checksum, and destination memory damaged after the copy (soft
 * verbs and the same-host rail). With the check on, a damaged slice is retried on another rail and
 * the bytes arrive intact, or the request fails DATA_CORRUPTED when every rail damages it; with the
 * check off, the same faults land damaged bytes unnoticed (so these tests can fail).
 */
@ExtendWith(BlockedThreadGuard.class)
class IntegrityTest {

  private static final int LENGTH = 1 << 20;
  private static final int SLICE = 64 << 10;

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  /** An initiator and a target with soft devices of their own. */
  private record Pair(
      TransferEngine initiator,
      TransferEngine target,
      RegisteredBuffer local,
      RegisteredBuffer remote,
      SegmentHandle seg,
      long expected) {

    FaultInjector initiatorFaults() {
      return initiator.diagnostics().faultInjector().orElseThrow();
    }

    FaultInjector targetFaults() {
      return target.diagnostics().faultInjector().orElseThrow();
    }

    String initiatorDevice(int i) {
      return initiator.diagnostics().devices().get(i).name();
    }

    String targetDevice(int i) {
      return target.diagnostics().devices().get(i).name();
    }
  }

  private Pair pair(String integrity, int devices, int targetDevices) {
    EngineOptions options =
        fx.engineOptions(devices, 1).setIntegrity(integrity).setSliceSize(SLICE);
    TransferEngine a = fx.start(options);
    TransferEngine b = fx.start(fx.engineOptions(targetDevices, 1));
    RegisteredBuffer local = fx.register(a, LENGTH, 7);
    RegisteredBuffer remote = fx.register(b, LENGTH, 8);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    long expected = fx.allocate(LENGTH);
    return new Pair(a, b, local, remote, seg, expected);
  }

  private static BatchResult run(Pair p, TransferRequest request, TransferOptions options) {
    return Await.result(
        p.initiator()
            .submit(List.of(request), options.setDeadline(Duration.ofSeconds(30)))
            .result(),
        WAIT);
  }

  private static BatchResult write(Pair p, TransferOptions options) {
    return run(
        p, TransferRequest.write(p.local(), 0, p.seg(), p.remote().address(), LENGTH), options);
  }

  private static BatchResult read(Pair p, TransferOptions options) {
    return run(
        p, TransferRequest.read(p.local(), 0, p.seg(), p.remote().address(), LENGTH), options);
  }

  /**
   * Runs five requests one after the other, each over a cleared destination, and checks that each
   * completed and left exactly the source's bytes there.
   */
  private static void assertRoundsIntact(Pair p, boolean read) {
    long destination = read ? p.local().address() : p.remote().address();
    for (int i = 0; i < 5; i++) {
      DirectMemory.fill(destination, LENGTH, (byte) 0);
      BatchResult b = read ? read(p, new TransferOptions()) : write(p, new TransferOptions());
      assertTrue(b.allCompleted(), "round " + i + ": " + b);
      assertEquals(
          -1,
          EngineFixture.mismatch(destination, p.expected(), LENGTH),
          "round " + i + ": the destination holds exactly the source's bytes");
    }
  }

  private static EngineCounters counters(Pair p) {
    return EngineInternals.counters(p.initiator());
  }

  @Test
  void withoutFaultsManyRequestsInFlightAreCheckedAndNoneIsFoundDamaged() {
    Pair p = pair("crc32c", 2, 2);
    List<TransferRequest> batch = new java.util.ArrayList<>();
    int pieces = 16;
    int piece = LENGTH / pieces;
    for (int i = 0; i < pieces; i++) {
      batch.add(
          i % 2 == 0
              ? TransferRequest.write(
                  p.local(), i * piece, p.seg(), p.remote().address() + i * piece, piece)
              : TransferRequest.read(
                  p.local(), i * piece, p.seg(), p.remote().address() + i * piece, piece));
    }
    for (int round = 0; round < 20; round++) {
      BatchResult b =
          Await.result(
              p.initiator()
                  .submit(batch, new TransferOptions().setDeadline(Duration.ofSeconds(30)))
                  .result(),
              WAIT);
      assertTrue(b.allCompleted(), "round " + round + ": " + b);
    }
    EngineCounters c = counters(p);
    assertEquals(20L * LENGTH / SLICE, c.integrityChecked(), "every slice was checked once");
    assertEquals(0, c.integrityCorrupted(), "no false alarm");
    assertEquals(0, c.retries(), "nothing was retried");
  }

  @Test
  void wireCorruptionOfWritesOnOneRailIsCaughtAndRetriedOnTheOther() {
    Pair p = pair("crc32c", 2, 1);
    EngineFixture.fill(p.expected(), LENGTH, 7);
    p.initiatorFaults().corruptFrames(p.initiatorDevice(0), 1.0, 11);
    assertRoundsIntact(p, false);
    EngineCounters c = counters(p);
    assertTrue(c.integrityCorrupted() > 0, "slices on the faulty rail were caught");
    assertTrue(c.retries() >= c.integrityCorrupted(), "each caught slice went again");
    assertTrue(c.integrityChecked() >= 5 * LENGTH / SLICE, "every slice was checked");
  }

  @Test
  void wireCorruptionOfReadResponsesIsCaughtAndRetriedOnAnotherRail() {
    Pair p = pair("crc32c", 1, 2);
    EngineFixture.fill(p.expected(), LENGTH, 8);
    // the target sends the READ responses: every one from its first device is damaged
    p.targetFaults().corruptFrames(p.targetDevice(0), 1.0, 5);
    assertRoundsIntact(p, true);
    assertTrue(counters(p).integrityCorrupted() > 0, "damaged responses were caught");
  }

  @Test
  void corruptionOnEveryRailFailsDataCorruptedNamingSegmentOffsetAndRail() {
    Pair p = pair("crc32c", 2, 1);
    p.initiatorFaults().corruptFrames(p.initiatorDevice(0), 1.0, 1);
    p.initiatorFaults().corruptFrames(p.initiatorDevice(1), 1.0, 2);
    BatchResult w = write(p, new TransferOptions());
    RequestResult result = w.requests().get(0);
    assertEquals(RequestStatus.FAILED, result.status(), w.toString());
    assertEquals(ErrorCode.DATA_CORRUPTED, result.cause().code(), result.cause().toString());
    String message = result.cause().getMessage();
    assertTrue(
        message.contains("segment '" + p.seg().name() + "'")
            && message.contains("offset ")
            && message.contains("via rail ")
            && message.contains(p.targetDevice(0)),
        message);
    assertTrue(counters(p).integrityCorrupted() >= 2, "both rails damaged it");
  }

  @Test
  void postCopyCorruptionAtTheTargetFailsAWriteCheckedPerBatchOnAnEngineWithoutTheOption() {
    Pair p = pair("none", 1, 1);
    EngineFixture.fill(p.expected(), LENGTH, 7);
    p.targetFaults().corruptLanded(p.targetDevice(0), 1.0, 3);

    BatchResult unchecked = write(p, new TransferOptions());
    assertTrue(unchecked.allCompleted(), "integrity none: nothing notices " + unchecked);
    assertNotEquals(
        -1,
        EngineFixture.mismatch(p.remote().address(), p.expected(), LENGTH),
        "the damaged bytes landed silently");
    assertEquals(0, counters(p).integrityChecked(), "nothing was checked");

    BatchResult checked = write(p, new TransferOptions().setIntegrity(Integrity.CRC32C));
    RequestResult result = checked.requests().get(0);
    assertEquals(ErrorCode.DATA_CORRUPTED, result.cause().code(), checked.toString());

    p.targetFaults().clearFrameFaults(p.targetDevice(0));
    BatchResult sound = write(p, new TransferOptions().setIntegrity(Integrity.CRC32C));
    assertTrue(sound.allCompleted(), sound.toString());
    assertEquals(-1, EngineFixture.mismatch(p.remote().address(), p.expected(), LENGTH));
  }

  @Test
  void postCopyCorruptionOfReadsOnOneLocalDeviceIsCaughtAndRetriedOnTheOther() {
    Pair p = pair("crc32c", 2, 1);
    EngineFixture.fill(p.expected(), LENGTH, 8);
    p.initiatorFaults().corruptLanded(p.initiatorDevice(1), 1.0, 4);
    assertRoundsIntact(p, true);
    assertTrue(counters(p).integrityCorrupted() > 0, "READs landing on the faulty device caught");

    BatchResult unchecked = read(p, new TransferOptions().setIntegrity(Integrity.NONE));
    assertTrue(unchecked.allCompleted(), unchecked.toString());
    p.initiatorFaults().corruptLanded(p.initiatorDevice(0), 1.0, 5);
    DirectMemory.fill(p.local().address(), LENGTH, (byte) 0);
    unchecked = read(p, new TransferOptions().setIntegrity(Integrity.NONE));
    assertTrue(unchecked.allCompleted(), "integrity none per batch: nothing notices");
    assertNotEquals(
        -1,
        EngineFixture.mismatch(p.local().address(), p.expected(), LENGTH),
        "the damaged bytes landed silently");
  }

  @Test
  void sameHostPostCopyCorruptionIsCaughtAndTheSliceTakesANetworkRail() {
    TransferEngineImpl owner = fx.start(1, 1);
    TransferEngineImpl requester = fx.start(fx.engineOptions(1, 1).setIntegrity("crc32c"));
    RegisteredBuffer remote = Await.result(owner.allocate(LENGTH, "cpu:0"), WAIT);
    RegisteredBuffer local = fx.register(requester, LENGTH, 9);
    SegmentHandle seg = Await.result(requester.openSegment(owner.serverName()), WAIT);
    long expected = fx.allocate(LENGTH);
    EngineFixture.fill(expected, LENGTH, 9);
    FaultInjector faults = requester.diagnostics().faultInjector().orElseThrow();
    faults.corruptLanded(RailStatus.SAME_HOST_DEVICE, 1.0, 6);
    TransferRequest write = TransferRequest.write(local, 0, seg, remote.address(), LENGTH);

    BatchResult w =
        Await.result(requester.submit(List.of(write), new TransferOptions()).result(), WAIT);
    assertTrue(w.allCompleted(), w.toString());
    assertEquals(-1, EngineFixture.mismatch(remote.address(), expected, LENGTH));
    EngineCounters c = EngineInternals.counters(requester);
    assertTrue(c.integrityCorrupted() > 0, "the same-host copy was caught");

    DirectMemory.fill(remote.address(), LENGTH, (byte) 0);
    long copiedBefore = EngineInternals.sharedMemoryRail(requester).copiedBytes();
    BatchResult unchecked =
        Await.result(
            requester
                .submit(List.of(write), new TransferOptions().setIntegrity(Integrity.NONE))
                .result(),
            WAIT);
    assertTrue(unchecked.allCompleted(), unchecked.toString());
    assertTrue(
        EngineInternals.sharedMemoryRail(requester).copiedBytes() > copiedBefore,
        "unchecked, it took the same-host rail");
    assertNotEquals(
        -1, EngineFixture.mismatch(remote.address(), expected, LENGTH), "damaged silently");
  }
}
