package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Remote accesses the responder must refuse (bad rkey, out of bounds, overflowing ranges, missing
 * permission, another PD's region, a closed region) and local ones the requester must refuse: the
 * WR completes with the right error, the QP goes to ERR, the rest flushes and the target memory is
 * untouched. The responder's QP goes to ERR too, with one QP_ACCESS_ERR (or QP_REQ_ERR) event on
 * its device.
 */
class AccessCheckTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final int SIZE = 1 << 16;

  /** What a violating WR looks like, given the target region and the other PD's region. */
  private record Case(String name, int opcode, Function<Target, long[]> remote) {}

  /** The peer's memory: the region under attack, and one in another PD. */
  private record Target(
      MemoryRegion mr, MemoryRegion readOnly, MemoryRegion writeOnly, MemoryRegion otherPd) {}

  private static final List<Case> REMOTE_CASES =
      List.of(
          new Case(
              "unknown rkey",
              WrOpcode.RDMA_WRITE,
              t -> new long[] {t.mr.address(), t.mr.rkey() ^ 0x5500, 64}),
          new Case(
              "past the end",
              WrOpcode.RDMA_WRITE,
              t -> new long[] {t.mr.address() + SIZE - 10, t.mr.rkey(), 64}),
          new Case(
              "before the start",
              WrOpcode.RDMA_READ,
              t -> new long[] {t.mr.address() - 1, t.mr.rkey(), 64}),
          new Case(
              "address overflow", WrOpcode.RDMA_WRITE, t -> new long[] {-16L, t.mr.rkey(), 64}),
          new Case(
              "write without REMOTE_WRITE",
              WrOpcode.RDMA_WRITE,
              t -> new long[] {t.readOnly.address(), t.readOnly.rkey(), 64}),
          new Case(
              "read without REMOTE_READ",
              WrOpcode.RDMA_READ,
              t -> new long[] {t.writeOnly.address(), t.writeOnly.rkey(), 64}),
          new Case(
              "region of another PD",
              WrOpcode.RDMA_WRITE,
              t -> new long[] {t.otherPd.address(), t.otherPd.rkey(), 64}),
          new Case(
              "range longer than what is left",
              WrOpcode.RDMA_READ,
              t -> new long[] {t.mr.address() + 8, t.mr.rkey(), SIZE}));

  @Test
  void everyRemoteViolationIsRefusedWithMemoryUntouchedAndTheQpFlushed() {
    for (Case c : REMOTE_CASES) {
      try (Fabric f = new Fabric(2)) {
        CompletionQueue cqA = f.ctx(0).createCq(16);
        CompletionQueue cqB = f.ctx(1).createCq(16);
        QueuePair a = f.qp(0, cqA, 8);
        QueuePair b = f.qp(1, cqB, 8);
        Fabric.connect(a, f.ctx(0), b, f.ctx(1), Fabric.FAST);
        List<AsyncEvent> peerEvents = new CopyOnWriteArrayList<>();
        f.ctx(1).setAsyncEventHandler(peerEvents::add);
        ByteBuffer local = ByteBuffer.allocateDirect(SIZE);
        DirectMemory.fill(DirectMemory.address(local), SIZE, (byte) 0x11);
        MemoryRegion ml = f.pd(0).registerMemory(local, AccessFlags.LOCAL_WRITE);
        ByteBuffer[] peerMem = new ByteBuffer[4];
        for (int i = 0; i < 4; i++) {
          peerMem[i] = ByteBuffer.allocateDirect(SIZE);
          DirectMemory.fill(DirectMemory.address(peerMem[i]), SIZE, (byte) (0x40 + i));
        }
        ProtectionDomain otherPd = f.ctx(1).allocPd();
        Target t =
            new Target(
                f.pd(1).registerMemory(peerMem[0], AccessFlags.ALL_REMOTE),
                f.pd(1)
                    .registerMemory(peerMem[1], AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ),
                f.pd(1)
                    .registerMemory(peerMem[2], AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE),
                otherPd.registerMemory(peerMem[3], AccessFlags.ALL_REMOTE));
        long[] before = new long[4];
        for (int i = 0; i < 4; i++) {
          before[i] = DataPathTest.crc(peerMem[i], 0, SIZE);
        }
        long[] r = c.remote.apply(t);
        WorkRequestBatch wr = WorkRequestBatch.allocate(3);
        wr.add(
            1, c.opcode, WrFlags.SIGNALED, ml.address(), (int) r[2], ml.lkey(), r[0], (int) r[1]);
        wr.add(
            2,
            WrOpcode.RDMA_WRITE,
            WrFlags.SIGNALED,
            ml.address(),
            64,
            ml.lkey(),
            t.mr.address(),
            t.mr.rkey());
        wr.add(
            3,
            WrOpcode.RDMA_WRITE,
            WrFlags.NONE,
            ml.address(),
            64,
            ml.lkey(),
            t.mr.address(),
            t.mr.rkey());
        assertEquals(PostStatus.OK, a.postSend(wr));
        List<Fabric.Wc> wcs = Fabric.await(cqA, 3, DEADLINE);
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), wcs.get(0).status(), c.name + ": " + wcs);
        assertEquals(1, wcs.get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(1).status(), c.name);
        assertEquals(
            WcStatus.WR_FLUSH_ERR.code(),
            wcs.get(2).status(),
            c.name + ": unsignaled WRs flush too");
        assertEquals(QpState.ERR, a.state(), c.name);
        for (int i = 0; i < 4; i++) {
          assertEquals(
              before[i],
              DataPathTest.crc(peerMem[i], 0, SIZE),
              c.name + ": peer memory " + i + " untouched");
        }
        Fabric.assertQuiet(cqA, Duration.ofMillis(10));
        assertResponderFailedOnce(b, cqB, peerEvents, AsyncEventType.QP_ACCESS_ERR, c.name);
      }
    }
  }

  /**
   * The responder QP (on soft1) is in ERR and its device raised {@code type} for it exactly once,
   * and nothing else: after the first event, a quiet window on the responder's CQ lets stragglers
   * show up.
   */
  private static void assertResponderFailedOnce(
      QueuePair b, CompletionQueue cqB, List<AsyncEvent> events, AsyncEventType type, String what) {
    Await.until(what + ": " + type + " on the responder", DEADLINE, () -> !events.isEmpty());
    assertEquals(QpState.ERR, b.state(), what + ": responder QP state");
    Fabric.assertQuiet(cqB, Duration.ofMillis(50));
    assertEquals(List.of(AsyncEvent.qp("soft1", type, b.qpNum())), events, what);
  }

  @Test
  void aClosedRegionRefusesRemoteAccess() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cqA = f.ctx(0).createCq(16);
      QueuePair a = f.pair(cqA, 8, Fabric.FAST).a();
      ByteBuffer local = ByteBuffer.allocateDirect(4096);
      ByteBuffer peer = ByteBuffer.allocateDirect(4096);
      MemoryRegion ml = f.pd(0).registerMemory(local, AccessFlags.LOCAL_WRITE);
      MemoryRegion mp = f.pd(1).registerMemory(peer, AccessFlags.ALL_REMOTE);
      mp.close();
      WorkRequestBatch wr = WorkRequestBatch.allocate(1);
      wr.add(
          1,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          ml.address(),
          8,
          ml.lkey(),
          mp.address(),
          mp.rkey());
      assertEquals(PostStatus.OK, a.postSend(wr));
      assertEquals(WcStatus.REM_ACCESS_ERR.code(), Fabric.await(cqA, 1, DEADLINE).get(0).status());
      assertEquals(0L, peer.getLong(0));
    }
  }

  @Test
  void localKeyAndRangeViolationsCompleteWithLocalErrorsInOrder() {
    int[][] cases = {
      // {lkey xor, offset, length, expected status}
      {0x7700, 0, 64, WcStatus.LOC_PROT_ERR.code()},
      {0, SIZE - 8, 64, WcStatus.LOC_PROT_ERR.code()},
      {0, 0, -5, WcStatus.LOC_LEN_ERR.code()},
    };
    for (int[] c : cases) {
      try (Fabric f = new Fabric(2)) {
        CompletionQueue cqA = f.ctx(0).createCq(16);
        QueuePair a = f.pair(cqA, 8, Fabric.FAST).a();
        MemoryRegion ml = f.localMr(SIZE);
        ByteBuffer peer = ByteBuffer.allocateDirect(SIZE);
        MemoryRegion mp = f.pd(1).registerMemory(peer, AccessFlags.ALL_REMOTE);
        WorkRequestBatch wr = WorkRequestBatch.allocate(3);
        wr.add(
            1,
            WrOpcode.RDMA_WRITE,
            WrFlags.SIGNALED,
            ml.address(),
            64,
            ml.lkey(),
            mp.address(),
            mp.rkey());
        wr.add(
            2,
            WrOpcode.RDMA_WRITE,
            WrFlags.SIGNALED,
            ml.address() + c[1],
            c[2],
            ml.lkey() ^ c[0],
            mp.address(),
            mp.rkey());
        wr.add(
            3,
            WrOpcode.RDMA_WRITE,
            WrFlags.SIGNALED,
            ml.address(),
            64,
            ml.lkey(),
            mp.address(),
            mp.rkey());
        assertEquals(PostStatus.OK, a.postSend(wr));
        List<Fabric.Wc> wcs = Fabric.await(cqA, 3, DEADLINE);
        assertEquals(
            List.of(1L, 2L, 3L),
            wcs.stream().map(Fabric.Wc::wrId).toList(),
            "completions in order");
        assertEquals(WcStatus.SUCCESS.code(), wcs.get(0).status());
        assertEquals(c[3], wcs.get(1).status(), "case " + java.util.Arrays.toString(c));
        assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(2).status());
        assertEquals(QpState.ERR, a.state());
      }
    }
  }

  @Test
  void aSendLongerThanTheReceiveFailsBothSides() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cqA = f.ctx(0).createCq(16);
      CompletionQueue cqB = f.ctx(1).createCq(16);
      QueuePair a = f.qp(0, cqA, 8);
      QueuePair b = f.qp(1, cqB, 8);
      Fabric.connect(a, f.ctx(0), b, f.ctx(1), Fabric.FAST);
      List<AsyncEvent> peerEvents = new CopyOnWriteArrayList<>();
      f.ctx(1).setAsyncEventHandler(peerEvents::add);
      MemoryRegion ml = f.localMr(4096);
      ByteBuffer in = ByteBuffer.allocateDirect(4096);
      MemoryRegion mr = f.pd(1).registerMemory(in, AccessFlags.LOCAL_WRITE);
      WorkRequestBatch r = WorkRequestBatch.allocate(2);
      r.add(10, WrOpcode.RECV, 0, mr.address(), 16, mr.lkey(), 0, 0);
      r.add(11, WrOpcode.RECV, 0, mr.address(), 16, mr.lkey(), 0, 0);
      assertEquals(PostStatus.OK, b.postRecv(r));
      WorkRequestBatch s = WorkRequestBatch.allocate(1);
      s.add(1, WrOpcode.SEND, WrFlags.SIGNALED, ml.address(), 100, ml.lkey(), 0, 0);
      assertEquals(PostStatus.OK, a.postSend(s));
      assertEquals(WcStatus.REM_INV_REQ_ERR.code(), Fabric.await(cqA, 1, DEADLINE).get(0).status());
      List<Fabric.Wc> got = Fabric.await(cqB, 2, DEADLINE);
      assertEquals(
          new Fabric.Wc(10, WcStatus.LOC_LEN_ERR.code(), WcOpcode.RECV, 0, b.qpNum(), 0),
          got.get(0));
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), got.get(1).status());
      assertEquals(0L, in.getLong(0), "receive buffer untouched");
      assertResponderFailedOnce(
          b, cqB, peerEvents, AsyncEventType.QP_REQ_ERR, "SEND longer than the RECV");
    }
  }
}
