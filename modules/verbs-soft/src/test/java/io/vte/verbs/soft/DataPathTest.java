package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** WRITE, READ, SEND/RECV, WRITE_WITH_IMM and RNR between two devices in one JVM, byte-exact. */
class DataPathTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final int REGION = 64 << 20;

  private Fabric f;
  private CompletionQueue cqA;
  private CompletionQueue cqB;
  private QueuePair a;
  private QueuePair b;

  @BeforeEach
  void connect() {
    f = new Fabric(2);
    cqA = f.ctx(0).createCq(256);
    cqB = f.ctx(1).createCq(256);
    a = f.qp(0, cqA, 32);
    b = f.qp(1, cqB, 32);
    Fabric.connect(a, f.ctx(0), b, f.ctx(1), Fabric.LOADED);
  }

  @AfterEach
  void close() {
    f.close();
  }

  static long crc(ByteBuffer buf, int offset, int length) {
    CRC32C c = new CRC32C();
    c.update(buf.duplicate().clear().position(offset).limit(offset + length));
    return c.getValue();
  }

  @Test
  void randomSizesFromOneByteTo64MiBWriteAndReadBackWithMatchingChecksums() {
    ByteBuffer src = ByteBuffer.allocateDirect(REGION);
    ByteBuffer dst = ByteBuffer.allocateDirect(REGION);
    ByteBuffer back = ByteBuffer.allocateDirect(REGION);
    SplittableRandom rnd = new SplittableRandom(20261129);
    while (src.remaining() >= 8) {
      src.putLong(rnd.nextLong());
    }
    MemoryRegion mSrc = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
    MemoryRegion mBack = f.pd(0).registerMemory(back, AccessFlags.LOCAL_WRITE);
    MemoryRegion mDst = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
    int[] sizes = new int[24];
    sizes[0] = 1;
    sizes[1] = REGION;
    for (int i = 2; i < sizes.length; i++) {
      sizes[i] = 1 + (int) Math.min(REGION - 1, (long) Math.pow(2, rnd.nextDouble() * 26));
    }
    WorkRequestBatch wr = WorkRequestBatch.allocate(2);
    for (int size : sizes) {
      int srcOff = rnd.nextInt(REGION - size + 1);
      int dstOff = rnd.nextInt(REGION - size + 1);
      wr.clear();
      wr.add(
          size,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          mSrc.address() + srcOff,
          size,
          mSrc.lkey(),
          mDst.address() + dstOff,
          mDst.rkey());
      wr.add(
          -size,
          WrOpcode.RDMA_READ,
          WrFlags.SIGNALED,
          mBack.address() + dstOff,
          size,
          mBack.lkey(),
          mDst.address() + dstOff,
          mDst.rkey());
      assertEquals(PostStatus.OK, a.postSend(wr));
      List<Fabric.Wc> wcs = Fabric.await(cqA, 2, DEADLINE);
      assertEquals(WcStatus.SUCCESS.code(), wcs.get(0).status(), "write of " + size);
      assertEquals(WcStatus.SUCCESS.code(), wcs.get(1).status(), "read of " + size);
      assertEquals(-size, wcs.get(1).wrId());
      long expected = crc(src, srcOff, size);
      assertEquals(expected, crc(dst, dstOff, size), "target checksum, size " + size);
      assertEquals(expected, crc(back, dstOff, size), "read-back checksum, size " + size);
    }
  }

  @Test
  void manySmallUnsignaledWritesCompleteInOrderWithOneSignaledTail() {
    ByteBuffer src = ByteBuffer.allocateDirect(4096);
    ByteBuffer dst = ByteBuffer.allocateDirect(4096 * 32);
    MemoryRegion mSrc = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
    MemoryRegion mDst = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
    WorkRequestBatch wr = WorkRequestBatch.allocate(32);
    for (int round = 0; round < 50; round++) {
      for (int i = 0; i < 4096; i++) {
        src.put(i, (byte) (round + i));
      }
      wr.clear();
      for (int i = 0; i < 32; i++) {
        wr.add(
            round * 100 + i,
            WrOpcode.RDMA_WRITE,
            i == 31 ? WrFlags.SIGNALED : WrFlags.NONE,
            mSrc.address(),
            4096,
            mSrc.lkey(),
            mDst.address() + 4096L * i,
            mDst.rkey());
      }
      assertEquals(PostStatus.OK, a.postSend(wr));
      List<Fabric.Wc> wcs = Fabric.await(cqA, 1, DEADLINE);
      assertEquals(round * 100 + 31, wcs.get(0).wrId(), "only the signaled WR reports");
      for (int i = 0; i < 32; i++) {
        assertEquals(crc(src, 0, 4096), crc(dst, 4096 * i, 4096), "round " + round + " block " + i);
      }
    }
  }

  @Test
  void sendConsumesAPostedReceiveAndCarriesImmediateData() {
    ByteBuffer src = ByteBuffer.allocateDirect(1 << 20);
    ByteBuffer rcv = ByteBuffer.allocateDirect(1 << 20);
    for (int i = 0; i < src.capacity(); i++) {
      src.put(i, (byte) (i * 31));
    }
    MemoryRegion mSrc = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
    MemoryRegion mRcv = f.pd(1).registerMemory(rcv, AccessFlags.ALL_REMOTE);
    WorkRequestBatch r = WorkRequestBatch.allocate(2);
    r.add(11, WrOpcode.RECV, 0, mRcv.address(), 1 << 19, mRcv.lkey(), 0, 0);
    r.add(12, WrOpcode.RECV, 0, mRcv.address() + (1 << 19), 1 << 19, mRcv.lkey(), 0, 0);
    assertEquals(PostStatus.OK, b.postRecv(r));
    WorkRequestBatch s = WorkRequestBatch.allocate(2);
    s.add(1, WrOpcode.SEND, WrFlags.SIGNALED, mSrc.address(), 1000, mSrc.lkey(), 0, 0);
    s.add(
        2,
        WrOpcode.SEND_WITH_IMM,
        WrFlags.SIGNALED | WrFlags.INLINE,
        mSrc.address() + 5000,
        64,
        0,
        0,
        0,
        0xCAFE);
    assertEquals(PostStatus.OK, a.postSend(s));
    List<Fabric.Wc> sent = Fabric.await(cqA, 2, DEADLINE);
    assertEquals(WcOpcode.SEND, sent.get(0).opcode());
    assertEquals(WcStatus.SUCCESS.code(), sent.get(1).status());
    List<Fabric.Wc> got = Fabric.await(cqB, 2, DEADLINE);
    assertEquals(new Fabric.Wc(11, 0, WcOpcode.RECV, 1000, b.qpNum(), 0), got.get(0));
    assertEquals(new Fabric.Wc(12, 0, WcOpcode.RECV, 64, b.qpNum(), 0xCAFE), got.get(1));
    assertEquals(crc(src, 0, 1000), crc(rcv, 0, 1000));
    assertEquals(crc(src, 5000, 64), crc(rcv, 1 << 19, 64));
  }

  @Test
  void writeWithImmediateLandsInMemoryAndConsumesAReceive() {
    ByteBuffer src = ByteBuffer.allocateDirect(8192);
    ByteBuffer dst = ByteBuffer.allocateDirect(8192);
    DirectMemory.fill(DirectMemory.address(src), 8192, (byte) 0x5A);
    MemoryRegion mSrc = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
    MemoryRegion mDst = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
    WorkRequestBatch r = WorkRequestBatch.allocate(1);
    r.add(7, WrOpcode.RECV, 0, 0, 0, 0, 0, 0);
    assertEquals(PostStatus.OK, b.postRecv(r));
    WorkRequestBatch s = WorkRequestBatch.allocate(1);
    s.add(
        3,
        WrOpcode.RDMA_WRITE_WITH_IMM,
        WrFlags.SIGNALED,
        mSrc.address(),
        8192,
        mSrc.lkey(),
        mDst.address(),
        mDst.rkey(),
        77);
    assertEquals(PostStatus.OK, a.postSend(s));
    assertEquals(WcStatus.SUCCESS.code(), Fabric.await(cqA, 1, DEADLINE).get(0).status());
    assertEquals(
        new Fabric.Wc(7, 0, WcOpcode.RECV_RDMA_WITH_IMM, 8192, b.qpNum(), 77),
        Fabric.await(cqB, 1, DEADLINE).get(0));
    assertEquals(crc(src, 0, 8192), crc(dst, 0, 8192));
  }

  @Test
  void aQpResetAndReconnectedMovesDataAgain() {
    ByteBuffer src = ByteBuffer.allocateDirect(4096);
    ByteBuffer dst = ByteBuffer.allocateDirect(4096);
    MemoryRegion ms = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
    MemoryRegion md = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
    WorkRequestBatch wr = WorkRequestBatch.allocate(1);
    for (int round = 0; round < 5; round++) {
      src.putLong(0, 1000 + round);
      wr.clear();
      wr.add(
          round,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          ms.address(),
          8,
          ms.lkey(),
          md.address(),
          md.rkey());
      assertEquals(PostStatus.OK, a.postSend(wr));
      assertEquals(
          WcStatus.SUCCESS.code(),
          Fabric.await(cqA, 1, DEADLINE).get(0).status(),
          "round " + round);
      assertEquals(1000 + round, dst.getLong(0));
      if (round % 2 == 0) {
        a.toError(); // an error first: its (empty) flush must not leak into the next connection
        Fabric.assertQuiet(cqA, Duration.ofMillis(20));
      }
      a.toReset();
      b.toReset();
      RtsAttributes rts = new RtsAttributes(0, 19, 3, 0);
      Fabric.connect(a, f.ctx(0), b, f.ctx(1), rts);
    }
  }

  @Test
  void workPostedBeforeThePeerIsReadyFlowsSoonAfterItIs() {
    try (Fabric g = new Fabric(2)) {
      CompletionQueue qa = g.ctx(0).createCq(8);
      QueuePair x = g.qp(0, qa, 4);
      QueuePair y = g.qp(1, g.ctx(1).createCq(8), 4);
      io.vte.verbs.PortAttributes px = g.ctx(0).queryPort(1);
      io.vte.verbs.PortAttributes py = g.ctx(1).queryPort(1);
      x.toInit(1, AccessFlags.ALL_REMOTE);
      x.toRtr(new io.vte.verbs.QpPeer(y.qpNum(), py.lid(), py.gid(), 0), 4096);
      x.toRts(new RtsAttributes(0, 20, 3, 0)); // 4.3 s timeout: success must not wait for it
      ByteBuffer src = ByteBuffer.allocateDirect(64);
      ByteBuffer dst = ByteBuffer.allocateDirect(64);
      src.putLong(0, 42);
      MemoryRegion ms = g.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
      MemoryRegion md = g.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
      WorkRequestBatch wr = WorkRequestBatch.allocate(1);
      wr.add(
          1,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          ms.address(),
          8,
          ms.lkey(),
          md.address(),
          md.rkey());
      assertEquals(
          PostStatus.OK,
          x.postSend(wr)); // the peer QP is still in RESET: its NIC refuses the connection
      Fabric.assertQuiet(qa, Duration.ofMillis(30));
      long t0 = System.nanoTime();
      y.toInit(1, AccessFlags.ALL_REMOTE);
      y.toRtr(new io.vte.verbs.QpPeer(x.qpNum(), px.lid(), px.gid(), 0), 4096);
      assertEquals(WcStatus.SUCCESS.code(), Fabric.await(qa, 1, DEADLINE).get(0).status());
      long ms2 = (System.nanoTime() - t0) / 1_000_000;
      org.junit.jupiter.api.Assertions.assertTrue(
          ms2 < 2000, "reconnected after " + ms2 + " ms, not after a timeout");
      assertEquals(42, dst.getLong(0));
    }
  }

  @Test
  void sendWithoutAReceiveRetriesOnRnrAndSucceedsOnceOneIsPosted() {
    try (Fabric g = new Fabric(2)) {
      CompletionQueue qa = g.ctx(0).createCq(8);
      CompletionQueue qb = g.ctx(1).createCq(8);
      QueuePair x = g.qp(0, qa, 4);
      QueuePair y = g.qp(1, qb, 4);
      Fabric.connect(
          x, g.ctx(0), y, g.ctx(1), new RtsAttributes(0, 15, 2, 7)); // rnrRetry 7 = forever
      ByteBuffer buf = ByteBuffer.allocateDirect(64);
      buf.putLong(0, 0x1122334455667788L);
      MemoryRegion mx = g.pd(0).registerMemory(buf, AccessFlags.LOCAL_WRITE);
      ByteBuffer in = ByteBuffer.allocateDirect(64);
      MemoryRegion my = g.pd(1).registerMemory(in, AccessFlags.LOCAL_WRITE);
      WorkRequestBatch s = WorkRequestBatch.allocate(1);
      s.add(1, WrOpcode.SEND, WrFlags.SIGNALED, mx.address(), 8, mx.lkey(), 0, 0);
      assertEquals(PostStatus.OK, x.postSend(s));
      Fabric.assertQuiet(
          qa, Duration.ofMillis(400)); // RNR keeps it pending beyond timeout x retries
      WorkRequestBatch r = WorkRequestBatch.allocate(1);
      r.add(2, WrOpcode.RECV, 0, my.address(), 64, my.lkey(), 0, 0);
      assertEquals(PostStatus.OK, y.postRecv(r));
      assertEquals(WcStatus.SUCCESS.code(), Fabric.await(qa, 1, DEADLINE).get(0).status());
      assertEquals(8, Fabric.await(qb, 1, DEADLINE).get(0).byteLen());
      assertEquals(0x1122334455667788L, in.getLong(0));
    }
  }

  @Test
  void sendWithoutAReceiveFailsWithRnrRetryExceededWhenRetriesRunOut() {
    ByteBuffer buf = ByteBuffer.allocateDirect(64);
    MemoryRegion m = f.pd(0).registerMemory(buf, AccessFlags.LOCAL_WRITE);
    WorkRequestBatch s = WorkRequestBatch.allocate(2);
    s.add(1, WrOpcode.SEND, WrFlags.SIGNALED, m.address(), 8, m.lkey(), 0, 0);
    s.add(2, WrOpcode.SEND, WrFlags.SIGNALED, m.address(), 8, m.lkey(), 0, 0);
    assertEquals(PostStatus.OK, a.postSend(s));
    List<Fabric.Wc> wcs = Fabric.await(cqA, 2, DEADLINE);
    assertEquals(WcStatus.RNR_RETRY_EXC_ERR.code(), wcs.get(0).status());
    assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(1).status());
    assertEquals(QpState.ERR, a.state());
  }

  /**
   * The requester finds a WR's local region closed while the SEND before it waits out RNR NAKs:
   * every go-back resends the SEND (a stale local error once kept the go-back from sending
   * anything, so the SEND timed out), and once a RECV is posted the SEND succeeds and the bad WR
   * fails on its own.
   */
  @Test
  void aLocalErrorFoundBeforeAnRnrGoBackStillLetsTheEarlierSendCompleteOnceAReceiveIsPosted() {
    try (Fabric g = new Fabric(2)) {
      CompletionQueue qa = g.ctx(0).createCq(8);
      CompletionQueue qb = g.ctx(1).createCq(8);
      QueuePair x = g.qp(0, qa, 4);
      QueuePair y = g.qp(1, qb, 4);
      Fabric.connect(
          x,
          g.ctx(0),
          y,
          g.ctx(1),
          new RtsAttributes(0, 15, 2, 7)); // RNR forever; 3 x 134 ms timeout
      ByteBuffer buf = ByteBuffer.allocateDirect(64);
      buf.putLong(0, 0x0102030405060708L);
      MemoryRegion mx = g.pd(0).registerMemory(buf, AccessFlags.LOCAL_WRITE);
      ByteBuffer in = ByteBuffer.allocateDirect(64);
      MemoryRegion my = g.pd(1).registerMemory(in, AccessFlags.ALL_REMOTE);
      assertEquals(PostStatus.OK, x.postSend(sendThenClosedSource(g, mx, my)));
      // longer than timeout x retries: only the resent SENDs (each RNR-NAKed) keep the requester
      // alive
      Fabric.assertQuiet(qa, Duration.ofMillis(600));
      WorkRequestBatch r = WorkRequestBatch.allocate(1);
      r.add(9, WrOpcode.RECV, 0, my.address(), 64, my.lkey(), 0, 0);
      assertEquals(PostStatus.OK, y.postRecv(r));
      List<Fabric.Wc> wcs = Fabric.await(qa, 3, DEADLINE);
      assertEquals(WcStatus.SUCCESS.code(), wcs.get(0).status(), wcs.toString());
      assertEquals(WcStatus.LOC_PROT_ERR.code(), wcs.get(1).status(), wcs.toString());
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(2).status(), wcs.toString());
      assertEquals(8, Fabric.await(qb, 1, DEADLINE).get(0).byteLen());
      assertEquals(0x0102030405060708L, in.getLong(0));
    }
  }

  /**
   * The same with one RNR retry: the resent SEND meets the second RNR NAK and fails with
   * RNR_RETRY_EXC_ERR.
   */
  @Test
  void aLocalErrorFoundBeforeAnRnrGoBackLeavesTheEarlierSendToFailOnItsOwnRnrRetries() {
    try (Fabric g = new Fabric(2)) {
      CompletionQueue qa = g.ctx(0).createCq(8);
      QueuePair x = g.qp(0, qa, 4);
      QueuePair y = g.qp(1, g.ctx(1).createCq(8), 4);
      Fabric.connect(x, g.ctx(0), y, g.ctx(1), new RtsAttributes(0, 19, 3, 1));
      MemoryRegion mx =
          g.pd(0).registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
      MemoryRegion my =
          g.pd(1).registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.ALL_REMOTE);
      assertEquals(PostStatus.OK, x.postSend(sendThenClosedSource(g, mx, my)));
      List<Fabric.Wc> wcs = Fabric.await(qa, 3, DEADLINE);
      assertEquals(WcStatus.RNR_RETRY_EXC_ERR.code(), wcs.get(0).status(), wcs.toString());
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(1).status(), wcs.toString());
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(2).status(), wcs.toString());
    }
  }

  /**
   * A SEND (no RECV waits for it), an RDMA WRITE from a region closed before the post, another
   * SEND.
   */
  private static WorkRequestBatch sendThenClosedSource(
      Fabric g, MemoryRegion src, MemoryRegion dst) {
    MemoryRegion gone =
        g.pd(0).registerMemory(ByteBuffer.allocateDirect(64), AccessFlags.LOCAL_WRITE);
    gone.close();
    WorkRequestBatch s = WorkRequestBatch.allocate(3);
    s.add(1, WrOpcode.SEND, WrFlags.SIGNALED, src.address(), 8, src.lkey(), 0, 0);
    s.add(
        2,
        WrOpcode.RDMA_WRITE,
        WrFlags.SIGNALED,
        src.address(),
        8,
        gone.lkey(),
        dst.address(),
        dst.rkey());
    s.add(3, WrOpcode.SEND, WrFlags.SIGNALED, src.address(), 8, src.lkey(), 0, 0);
    return s;
  }
}
