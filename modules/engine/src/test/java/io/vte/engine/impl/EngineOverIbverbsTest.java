package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.IbverbsOptions;
import io.vte.api.Integrity;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.PortState;
import io.vte.verbs.WrFlags;
import io.vte.verbs.ibv.FakeIbverbs;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The engine over the ibverbs JNI provider and the fake libibverbs (which checks every verbs call
 * against the kernel's rules and moves the bytes between the QPs of this process): two engines of
 * two devices each, data path and failover around a port that goes down.
 */
@Tag("fake")
@ExtendWith(BlockedThreadGuard.class)
class EngineOverIbverbsTest {

  private static final String[] DEVICES = {"fake_mlx5_0", "fake_mlx5_1"};
  private static final int BLOCK = 4 << 20;
  private static final int MTU_1024 = 3;
  private static final int MTU_4096 = 5;

  @BeforeEach
  void fakeWithTwoDevices() {
    FakeIbverbs.reset();
    FakeIbverbs.setDevices(DEVICES, 1);
  }

  @AfterEach
  void nothingLeft() {
    FakeIbverbs.assertNothingLive();
  }

  private static EngineOptions options() {
    return new EngineOptions()
        .setTransport("ibverbs")
        .setDevices(List.of(DEVICES))
        .setWorkersPerContext(2)
        .setRpcHost("127.0.0.1")
        .setRailHoldDown(Duration.ofMillis(200));
  }

  private static BatchResult run(TransferEngineImpl engine, TransferRequest request) {
    return Await.result(
        engine
            .submit(List.of(request), new TransferOptions().setDeadline(Duration.ofSeconds(30)))
            .result(),
        WAIT);
  }

  @Test
  void writesAndReadsAreByteExactAcrossBothRails() {
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(options());
      TransferEngineImpl b = fx.start(options());
      assertEquals("ibverbs", EngineInternals.provider(a).name());
      RegisteredBuffer source = fx.register(a, 4L * BLOCK, 1);
      RegisteredBuffer back = fx.register(a, 4L * BLOCK, 2);
      RegisteredBuffer target = fx.register(b, 4L * BLOCK, 3);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      BatchResult w = run(a, TransferRequest.write(source, 0, seg, target.address(), 4L * BLOCK));
      assertTrue(w.allCompleted(), w.toString());
      assertEquals(-1, EngineFixture.mismatch(source.address(), target.address(), 4L * BLOCK));
      BatchResult r = run(a, TransferRequest.read(back, 0, seg, target.address(), 4L * BLOCK));
      assertTrue(r.allCompleted(), r.toString());
      assertEquals(-1, EngineFixture.mismatch(source.address(), back.address(), 4L * BLOCK));
      assertTrue(FakeIbverbs.count("bytes_moved") >= 8L * BLOCK, "the fake moved the bytes");
      assertTrue(
          FakeIbverbs.lines("ibv_post_send").stream().anyMatch(l -> l.contains("qpn=")),
          "work went through ibv_post_send");
      assertEquals(List.of(), FakeIbverbs.refusals(), "no call broke a verbs rule");
    }
  }

  /**
   * ibverbs checks by READ-back ({@code ReadBackVerifier}): with {@code integrity: crc32c} each
   * WRITE slice goes to the HCA as an unsignaled WRITE and a READ of the same range, each READ
   * slice as two READs; no VTE flag reaches {@code ibv_post_send}, and every slice counts as
   * checked.
   */
  @Test
  void integrityIsCheckedByReadBackAndEverySliceCountsAsChecked() {
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(options().setIntegrity("crc32c"));
      TransferEngineImpl b = fx.start(options());
      RegisteredBuffer source = fx.register(a, 2L * BLOCK, 7);
      RegisteredBuffer back = fx.register(a, 2L * BLOCK, 9);
      RegisteredBuffer target = fx.register(b, 2L * BLOCK, 8);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      FakeIbverbs.clearLog();
      BatchResult w = run(a, TransferRequest.write(source, 0, seg, target.address(), 2L * BLOCK));
      assertTrue(w.allCompleted(), w.toString());
      assertEquals(-1, EngineFixture.mismatch(source.address(), target.address(), 2L * BLOCK));
      BatchResult r = run(a, TransferRequest.read(back, 0, seg, target.address(), 2L * BLOCK));
      assertTrue(r.allCompleted(), r.toString());
      assertEquals(-1, EngineFixture.mismatch(source.address(), back.address(), 2L * BLOCK));
      long slices = 2L * (2L * BLOCK / (64 << 10));
      int writes = 0;
      int reads = 0;
      for (String post : FakeIbverbs.lines("post_send")) {
        Map<String, String> f = FakeIbverbs.fields(post);
        int flags = Integer.decode(f.get("flags"));
        assertEquals(0, flags & WrFlags.INTEGRITY, "no VTE flag reaches the HCA: " + post);
        if ("0".equals(f.get("opcode"))) {
          writes++;
          assertEquals(0, flags & WrFlags.SIGNALED, "a checked WRITE is unsignaled: " + post);
        } else if ("4".equals(f.get("opcode"))) {
          reads++;
        }
      }
      assertEquals(slices / 2, writes, "one WRITE per WRITE slice");
      assertEquals(
          slices / 2 + 2 * (slices / 2), reads, "a READ-back per WRITE slice, two per READ slice");
      assertEquals(slices, EngineInternals.counters(a).integrityChecked(), "every slice checked");
      assertEquals(0, EngineInternals.counters(a).integrityCorrupted(), "no false alarm");
      assertEquals(List.of(), FakeIbverbs.refusals());
    }
  }

  /**
   * Damage in the target's memory after a WRITE landed (the fake flips a byte there, as a bad DIMM
   * would; no link CRC sees it): unchecked it lands silently; checked, the READ-back finds it, the
   * slice goes again, and when the second copy is damaged too the request fails DATA_CORRUPTED.
   */
  @Test
  void damageLandedAfterAWriteIsFoundRetriedAndTwiceIsDataCorrupted() {
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(options());
      TransferEngineImpl b = fx.start(options());
      int slice = 64 << 10;
      RegisteredBuffer source = fx.register(a, slice, 7);
      RegisteredBuffer target = fx.register(b, slice, 8);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      TransferRequest write = TransferRequest.write(source, 0, seg, target.address(), slice);
      assertTrue(run(a, write).allCompleted(), "connected");

      FakeIbverbs.corruptLanded(1, 0);
      assertTrue(run(a, write).allCompleted(), "integrity none: nothing notices");
      assertNotEquals(
          -1, EngineFixture.mismatch(source.address(), target.address(), slice), "damaged");
      assertEquals(0, EngineInternals.counters(a).integrityChecked(), "nothing was checked");

      TransferOptions checked =
          new TransferOptions().setIntegrity(Integrity.CRC32C).setDeadline(Duration.ofSeconds(30));
      FakeIbverbs.corruptLanded(1, 0);
      BatchResult once = Await.result(a.submit(List.of(write), checked).result(), WAIT);
      assertTrue(once.allCompleted(), "the retry landed intact: " + once);
      assertEquals(-1, EngineFixture.mismatch(source.address(), target.address(), slice));
      assertEquals(1, EngineInternals.counters(a).integrityCorrupted(), "the damage was found");
      assertEquals(2, EngineInternals.counters(a).integrityChecked(), "both copies were checked");

      FakeIbverbs.corruptLanded(2, 0);
      BatchResult twice = Await.result(a.submit(List.of(write), checked).result(), WAIT);
      RequestResult result = twice.requests().get(0);
      assertEquals(RequestStatus.FAILED, result.status(), twice.toString());
      assertEquals(ErrorCode.DATA_CORRUPTED, result.cause().code(), result.cause().toString());
      assertEquals(3, EngineInternals.counters(a).integrityCorrupted());
      assertEquals(4, FakeIbverbs.count("landed_corrupted"));
      assertEquals(List.of(), FakeIbverbs.refusals());
    }
  }

  /** rxe takes work requests of 8 MiB at most: a slice is never larger than a port's max_msg_sz. */
  @Test
  void slicesAreNoLargerThanThePortsLargestMessage() {
    FakeIbverbs.setPortLimits(1, 1 << 20, 1);
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(options().setSliceSize(4 << 20));
      TransferEngineImpl b = fx.start(options());
      RegisteredBuffer source = fx.register(a, 2L * BLOCK, 5);
      RegisteredBuffer target = fx.register(b, 2L * BLOCK, 6);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      BatchResult w = run(a, TransferRequest.write(source, 0, seg, target.address(), 2L * BLOCK));
      assertTrue(w.allCompleted(), w.toString());
      assertEquals(-1, EngineFixture.mismatch(source.address(), target.address(), 2L * BLOCK));
      assertEquals(List.of(), FakeIbverbs.refusals(), "no work request above max_msg_sz");
      assertTrue(
          FakeIbverbs.lines("post_send").stream()
              .allMatch(l -> Long.parseLong(FakeIbverbs.fields(l).get("length")) <= 1 << 20),
          "every slice within max_msg_sz");
    }
  }

  @Test
  void aPortThatGoesDownFailsOverToTheOtherRailWithoutAFailedRequest() {
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(options());
      TransferEngineImpl b = fx.start(options());
      RegisteredBuffer source = fx.register(a, BLOCK, 11);
      RegisteredBuffer target = fx.register(b, 3L * BLOCK, 12);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      long[] atDown = null;
      for (int round = 0; round < 30; round++) {
        if (round == 10) {
          atDown = movedByDevice(a, b);
          FakeIbverbs.setDevicePortState(0, 1, PortState.DOWN.code());
        }
        if (round == 20) {
          long[] atUp = movedByDevice(a, b);
          assertEquals(0, atUp[0] - atDown[0], "nothing completed on the down port");
          assertEquals(10L * BLOCK, atUp[1] - atDown[1], "the other rail carried every slice");
          FakeIbverbs.setDevicePortState(0, 1, PortState.ACTIVE.code());
        }
        long at = target.address() + (long) (round % 3) * BLOCK;
        BatchResult w = run(a, TransferRequest.write(source, 0, seg, at, BLOCK));
        assertTrue(w.allCompleted(), "round " + round + ": " + w);
        assertEquals(-1, EngineFixture.mismatch(source.address(), at, BLOCK), "round " + round);
      }
      assertEquals(
          1, FakeIbverbs.lines("port 1 of device 0 state=1").size(), "the port went down once");
    }
  }

  @Test
  void everyRdmaPortDownFailsOverToTheSoftRailsAndMovesBackWhenOneIsUp() {
    EngineOptions mixed = options().setFallbackDevices(List.of("tcp0@127.0.0.1"));
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(mixed);
      TransferEngineImpl b = fx.start(mixed);
      assertEquals(
          List.of("fake_mlx5_0", "fake_mlx5_1", "tcp0"),
          a.diagnostics().devices().stream().map(d -> d.name()).toList());
      RegisteredBuffer source = fx.register(a, 4L * BLOCK, 21);
      RegisteredBuffer target = fx.register(b, 4L * BLOCK, 22);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);

      long[] start = moved(a, b);
      writeRounds(a, source, seg, target, 4);
      long[] allUp = moved(a, b);
      assertTrue(allUp[0] - start[0] >= 4L * BLOCK, "RDMA rails carried the slices");
      assertEquals(0, allUp[1] - start[1], "no slice on a soft rail while RDMA rails are usable");

      // Every RDMA port goes down in the middle of a 16 MiB WRITE: after 64 of its slices.
      FakeIbverbs.portDownAfterSends(-1, 1, 64);
      BatchResult w = run(a, TransferRequest.write(source, 0, seg, target.address(), 4L * BLOCK));
      assertTrue(w.allCompleted(), w.toString());
      assertEquals(-1, EngineFixture.mismatch(source.address(), target.address(), 4L * BLOCK));
      long[] down = moved(a, b);
      assertTrue(
          down[0] - allUp[0] > 0 && down[1] - allUp[1] > 0,
          "the WRITE was split: RDMA rails before the ports went down, soft rails after: "
              + (down[0] - allUp[0])
              + " / "
              + (down[1] - allUp[1]));
      assertEquals(4L * BLOCK, down[0] - allUp[0] + down[1] - allUp[1], "every byte once");
      Await.until("every RDMA port is seen down", WAIT, () -> rdmaPortsUp(a, false));
      down = moved(a, b);
      writeRounds(a, source, seg, target, 4);
      long[] afterDown = moved(a, b);
      assertEquals(0, afterDown[0] - down[0], "no slice on an RDMA rail while every port is down");
      assertEquals(4L * BLOCK, afterDown[1] - down[1], "the soft rails carried every slice");

      FakeIbverbs.setDevicePortState(1, 1, PortState.ACTIVE.code());
      Await.until(
          "slices move back to the RDMA rail",
          WAIT,
          () -> {
            long[] before = moved(a, b);
            writeRounds(a, source, seg, target, 1);
            long[] after = moved(a, b);
            return after[1] == before[1] && after[0] - before[0] == BLOCK;
          });
      assertTrue(
          a.diagnostics().rails().stream()
              .filter(r -> r.localDevice().equals("fake_mlx5_0"))
              .allMatch(r -> !r.localPortUp()),
          "device 0 stayed down: the one port up carried them");
      assertEquals(List.of(), FakeIbverbs.refusals(), "no call broke a verbs rule");
    }
  }

  @Test
  void theIbverbsOptionsReachEveryQpTheEngineConnects() {
    EngineOptions marked =
        options().setIbverbs(new IbverbsOptions().setTrafficClass(106).setServiceLevel(3));
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(marked);
      TransferEngineImpl b = fx.start(marked);
      RegisteredBuffer source = fx.register(a, BLOCK, 31);
      RegisteredBuffer target = fx.register(b, 4L * BLOCK, 32);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      writeRounds(a, source, seg, target, 2);
      for (Map<String, String> rtr : rtrAttributes("traffic_class")) {
        assertEquals("106", rtr.get("traffic_class"), rtr.toString());
        assertEquals("3", rtr.get("sl"), rtr.toString());
      }
    }
  }

  @Test
  void devicesWhoseGidTypesDifferAreRefusedNamingBothSides() {
    FakeIbverbs.setDeviceGid(1, 1, 0, FakeIbverbs.gid("fe80::1"), FakeIbverbs.ROCE_V2);
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(options().setDevices(List.of(DEVICES[0])));
      TransferEngineImpl b = fx.start(options().setDevices(List.of(DEVICES[1])));
      RegisteredBuffer source = fx.register(a, BLOCK, 41);
      RegisteredBuffer target = fx.register(b, BLOCK, 42);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      BatchResult w = run(a, TransferRequest.write(source, 0, seg, target.address(), BLOCK));
      assertFalse(w.allCompleted(), w.toString());
      VteException cause = w.requests().get(0).cause();
      assertEquals(ErrorCode.HANDSHAKE_REJECTED, cause.code(), cause.toString());
      assertTrue(
          cause.getMessage().contains("GID type mismatch")
              && cause.getMessage().contains("ROCE_V1")
              && cause.getMessage().contains("ROCE_V2")
              && cause.getMessage().contains(DEVICES[0])
              && cause.getMessage().contains(DEVICES[1]),
          cause.getMessage());
      assertEquals(List.of(), FakeIbverbs.refusals(), "refused before any QP reached RTR");
    }
  }

  @Test
  void optionsAboveTheDeviceCapsFailAtStartNamingTheOptionAndTheLimit() {
    FakeIbverbs.setCaps(64, 256, 16, 16, 256, 2);
    Vertx vertx = Vertx.vertx();
    try {
      VteException cq =
          (VteException)
              Await.failure(TransferEngine.create(vertx, options().setCqSize(512)), WAIT);
      assertEquals(ErrorCode.INVALID_CONFIGURATION, cq.code());
      assertEquals(
          "engine option 'cqSize' 512 is above max_cqe 128 of device 'fake_mlx5_0', as its"
              + " provider reports it: the provider keeps room for its integrity checks (ibverbs:"
              + " half the device's queues, option 'readBackVerify')",
          cq.getMessage().substring(cq.getMessage().indexOf("engine option")));
      VteException qp =
          (VteException)
              Await.failure(
                  TransferEngine.create(
                      vertx, options().setCqSize(128).setMaxOutstandingPerQp(128)),
                  WAIT);
      assertEquals(ErrorCode.INVALID_CONFIGURATION, qp.code());
      assertTrue(
          qp.getMessage()
              .contains(
                  "engine option 'maxOutstandingPerQp' 128 is above max_qp_wr 32 of device"
                      + " 'fake_mlx5_0'"),
          qp.getMessage());
      // without READ-back verify, the device's own limits
      VteException own =
          (VteException)
              Await.failure(
                  TransferEngine.create(
                      vertx,
                      options()
                          .setCqSize(512)
                          .setIbverbs(new IbverbsOptions().setReadBackVerify(false))),
                  WAIT);
      assertEquals(
          "engine option 'cqSize' 512 is above max_cqe 256 of device 'fake_mlx5_0'",
          own.getMessage().substring(own.getMessage().indexOf("engine option")));
    } finally {
      Await.result(vertx.close(), WAIT);
    }
    FakeIbverbs.assertNothingLive();
    try (EngineFixture fx = new EngineFixture()) {
      // half the device's queues: READ-back verify doubles them, checked WRITEs fill both
      TransferEngineImpl a =
          fx.start(options().setCqSize(128).setMaxOutstandingPerQp(32).setIntegrity("crc32c"));
      TransferEngineImpl b = fx.start(options().setCqSize(128).setMaxOutstandingPerQp(32));
      RegisteredBuffer source = fx.register(a, BLOCK, 61);
      RegisteredBuffer target = fx.register(b, 4L * BLOCK, 62);
      SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
      writeRounds(a, source, seg, target, 2);
      assertEquals(List.of(), FakeIbverbs.refusals(), "queues at the limits are legal");
      assertTrue(EngineInternals.counters(a).integrityChecked() > 0, "checked at the limits");
    }
  }

  @Test
  void thePathMtuIsTheSmallerActiveMtuOfBothSides() {
    FakeIbverbs.setDevicePort(
        1, 1, PortState.ACTIVE.code(), MTU_4096, 1, FakeIbverbs.LINK_ETHERNET, 1);
    try (EngineFixture fx = new EngineFixture()) {
      TransferEngineImpl a = fx.start(options().setDevices(List.of(DEVICES[0])));
      TransferEngineImpl b = fx.start(options().setDevices(List.of(DEVICES[1])));
      RegisteredBuffer source = fx.register(a, BLOCK, 51);
      RegisteredBuffer target = fx.register(b, 4L * BLOCK, 52);
      Logger log = Logger.getLogger("io.vte.engine.impl.handshake.PathAgreement");
      List<String> warnings = new CopyOnWriteArrayList<>();
      Handler capture =
          new Handler() {
            @Override
            public void publish(LogRecord r) {
              if (r.getLevel() == java.util.logging.Level.WARNING) {
                warnings.add(r.getMessage());
              }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
          };
      log.addHandler(capture);
      try {
        SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
        writeRounds(a, source, seg, target, 1);
      } finally {
        log.removeHandler(capture);
      }
      for (Map<String, String> rtr : rtrAttributes("path_mtu")) {
        assertEquals(String.valueOf(MTU_1024), rtr.get("path_mtu"), "1024: " + rtr);
      }
      assertTrue(
          warnings.stream().anyMatch(w -> w.contains("MTU mismatch") && w.contains("using 1024")),
          "the mismatch is reported: " + warnings);
    }
  }

  /**
   * @return the attributes of every ibv_modify_qp the fake logged with {@code field} (the RTR
   *     transitions), at least one per side
   */
  private static List<Map<String, String>> rtrAttributes(String field) {
    List<Map<String, String>> rtr =
        FakeIbverbs.lines("ibv_modify_qp").stream()
            .filter(l -> l.contains(" " + field + "="))
            .map(FakeIbverbs::fields)
            .toList();
    assertTrue(rtr.size() >= 2, "both sides' QPs went to RTR with " + field + ": " + rtr);
    return rtr;
  }

  /** WRITEs BLOCK bytes {@code rounds} times, each to another block of the target, checked. */
  private static void writeRounds(
      TransferEngineImpl a,
      RegisteredBuffer source,
      SegmentHandle seg,
      RegisteredBuffer target,
      int rounds) {
    for (int round = 0; round < rounds; round++) {
      long at = target.address() + (long) (round % 4) * BLOCK;
      BatchResult w = run(a, TransferRequest.write(source, 0, seg, at, BLOCK));
      assertTrue(w.allCompleted(), "round " + round + ": " + w);
      assertEquals(-1, EngineFixture.mismatch(source.address(), at, BLOCK), "round " + round);
    }
  }

  /**
   * @return bytes a's rails to b moved so far: {RDMA rails, soft rails}
   */
  private static long[] moved(TransferEngineImpl a, TransferEngineImpl b) {
    long[] moved = new long[2];
    for (RailStatus r : a.diagnostics().rails()) {
      if (r.peerServer().equals(b.serverName())) {
        moved[r.localDevice().startsWith("fake_mlx5") ? 0 : 1] += r.movedBytes();
      }
    }
    return moved;
  }

  /**
   * @return bytes a's rails to b moved so far, by a's device: {fake_mlx5_0, fake_mlx5_1}
   */
  private static long[] movedByDevice(TransferEngineImpl a, TransferEngineImpl b) {
    long[] moved = new long[DEVICES.length];
    for (RailStatus r : a.diagnostics().rails()) {
      if (r.peerServer().equals(b.serverName())) {
        moved[List.of(DEVICES).indexOf(r.localDevice())] += r.movedBytes();
      }
    }
    return moved;
  }

  private static boolean rdmaPortsUp(TransferEngineImpl a, boolean up) {
    return a.diagnostics().rails().stream()
        .filter(r -> r.localDevice().startsWith("fake_mlx5"))
        .allMatch(r -> r.localPortUp() == up);
  }
}
