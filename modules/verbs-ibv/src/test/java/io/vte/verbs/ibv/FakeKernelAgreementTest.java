package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the fake does as the kernel and rdma_rxe did on first contact (native/HARDWARE.md): PSN and
 * path MTU checks between requester and responder, the send queue's depth, INLINE on a READ,
 * registration of unmapped or read-only memory, a GID table per device, the P_Key index and the
 * port's largest message.
 */
@Tag("fake")
class FakeKernelAgreementTest extends FakePairFixture {

  /** The device's own send-queue rules: READ-back verify would double the depth asked for. */
  @Override
  IbvSettings settings() {
    return new IbvSettings().setReadBackVerify(false);
  }

  private WorkRequestBatch writes(int n, int length, int flags) {
    WorkRequestBatch batch = WorkRequestBatch.allocate(n);
    for (int i = 0; i < n; i++) {
      batch.add(
          i,
          WrOpcode.RDMA_WRITE,
          flags,
          DirectMemory.address(src),
          length,
          srcMr.lkey(),
          DirectMemory.address(dst),
          dstMr.rkey());
    }
    return batch;
  }

  /**
   * Connects two fresh QPs on {@code cq}: {@code a}'s send PSN is {@code aSends}, what {@code b}
   * expects from it {@code bExpects}; {@code a}'s path MTU {@code aMtu}, {@code b}'s {@code bMtu}.
   */
  private QueuePair[] connect(CompletionQueue cq, int aSends, int bExpects, int aMtu, int bMtu) {
    PortAttributes port = pair.context.queryPort(1);
    QueuePair a = pair.pd.createQp(new QpInitAttributes(cq, cq, 32, 32, 0));
    QueuePair b = pair.pd.createQp(new QpInitAttributes(cq, cq, 32, 32, 0));
    a.toInit(1, AccessFlags.ALL_REMOTE);
    b.toInit(1, AccessFlags.ALL_REMOTE);
    a.toRtr(new QpPeer(b.qpNum(), port.lid(), port.gid(), 9), aMtu);
    b.toRtr(new QpPeer(a.qpNum(), port.lid(), port.gid(), bExpects), bMtu);
    a.toRts(new RtsAttributes(aSends, 14, 7, 7));
    b.toRts(new RtsAttributes(9, 14, 7, 7));
    return new QueuePair[] {a, b};
  }

  @Test
  void theSendQueueHoldsMaxSendWrUntilACompletionAtOrAfterThemIsPolled() {
    // FakePair asks 32 send WRs (granted 32): the 33rd post before any poll is refused
    assertEquals(PostStatus.OK, pair.a.postSend(writes(32, 64, WrFlags.NONE)));
    WorkRequestBatch one = writes(1, 64, WrFlags.SIGNALED);
    assertEquals(-12, pair.a.postSend(one), "ENOMEM: the send queue is full");
    assertTrue(FakeIbverbs.refusals().get(0).contains("send queue full"), FakeIbverbs.log());
    // nothing was signaled: no completion frees a slot; a QP like this is stuck, as on a ConnectX
    assertEquals(0, FakePair.poll(pair.cqA).count());
    assertEquals(-12, pair.a.postSend(one));
  }

  @Test
  void aPolledCompletionFreesItsSlotAndThoseBeforeIt() {
    WorkRequestBatch batch = writes(32, 64, WrFlags.NONE);
    batch.clear();
    for (int i = 0; i < 32; i++) {
      batch.add(
          i,
          WrOpcode.RDMA_WRITE,
          i == 31 ? WrFlags.SIGNALED : WrFlags.NONE,
          DirectMemory.address(src),
          64,
          srcMr.lkey(),
          DirectMemory.address(dst),
          dstMr.rkey());
    }
    assertEquals(PostStatus.OK, pair.a.postSend(batch));
    assertEquals(-12, pair.a.postSend(writes(1, 64, WrFlags.SIGNALED)), "full until polled");
    assertEquals(1, FakePair.poll(pair.cqA).count());
    assertEquals(PostStatus.OK, pair.a.postSend(writes(32, 64, WrFlags.SIGNALED)));
  }

  @Test
  void inlineOnAReadIsRefusedAtPost() {
    WorkRequestBatch read = WorkRequestBatch.allocate(1);
    read.add(
        1,
        WrOpcode.RDMA_READ,
        WrFlags.SIGNALED | WrFlags.INLINE,
        DirectMemory.address(dst),
        0,
        dstMr.lkey(),
        DirectMemory.address(src),
        srcMr.rkey());
    assertEquals(-22, pair.a.postSend(read), "EINVAL");
    assertTrue(FakeIbverbs.refusals().get(0).contains("INLINE on an RDMA READ"), FakeIbverbs.log());
  }

  @Test
  void aPsnTheResponderDoesNotExpectIsNakedAndMovesNothing() {
    CompletionQueue cq = pair.context.createCq(64);
    QueuePair[] qps = connect(cq, 100, 101, 1024, 1024);
    src.put(0, (byte) 7);
    assertEquals(PostStatus.OK, qps[0].postSend(writes(1, 64, WrFlags.SIGNALED)));
    WorkCompletionBatch wc = FakePair.poll(cq);
    assertEquals(1, wc.count());
    assertEquals(WcStatus.RETRY_EXC_ERR.ordinal(), wc.status(0));
    assertEquals(0, dst.get(0), "nothing moved");
    assertTrue(FakeIbverbs.log().contains("expects psn 101"), FakeIbverbs.log());
    // the matching PSN passes, and both sides count the packets: 3 of 1024 bytes, then the next
    QueuePair[] ok = connect(cq, 200, 200, 1024, 1024);
    assertEquals(PostStatus.OK, ok[0].postSend(writes(2, 3000, WrFlags.SIGNALED)));
    WorkCompletionBatch two = FakePair.poll(cq);
    assertEquals(2, two.count());
    assertEquals(WcStatus.SUCCESS.ordinal(), two.status(1));
    assertEquals(7, dst.get(0));
    for (QueuePair qp : List.of(qps[0], qps[1], ok[0], ok[1])) {
      qp.close();
    }
    cq.close();
  }

  @Test
  void packetsAboveTheRespondersPathMtuAreAnInvalidRequest() {
    FakeIbverbs.setPort(1, 4, 4, 0, FakeIbverbs.LINK_ETHERNET, 1); // ACTIVE, MTU 2048
    try (FakePair big = new FakePair(new IbvSettings())) {
      MemoryRegion from = big.pd.registerMemory(src, AccessFlags.ALL_REMOTE);
      MemoryRegion to = big.pd.registerMemory(dst, AccessFlags.ALL_REMOTE);
      PortAttributes port = big.context.queryPort(1);
      CompletionQueue cq = big.context.createCq(64);
      QueuePair a = big.pd.createQp(new QpInitAttributes(cq, cq, 32, 32, 0));
      QueuePair b = big.pd.createQp(new QpInitAttributes(cq, cq, 32, 32, 0));
      a.toInit(1, AccessFlags.ALL_REMOTE);
      b.toInit(1, AccessFlags.ALL_REMOTE);
      // the sides disagree: a sends 2048-byte packets, b takes 1024-byte ones
      a.toRtr(new QpPeer(b.qpNum(), port.lid(), port.gid(), 9), 2048);
      b.toRtr(new QpPeer(a.qpNum(), port.lid(), port.gid(), 5), 1024);
      a.toRts(new RtsAttributes(5, 14, 7, 7));
      b.toRts(new RtsAttributes(9, 14, 7, 7));
      WorkRequestBatch two = WorkRequestBatch.allocate(2);
      long s = DirectMemory.address(src);
      long d = DirectMemory.address(dst);
      two.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s, 1024, from.lkey(), d, to.rkey());
      two.add(2, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s, 2048, from.lkey(), d, to.rkey());
      assertEquals(PostStatus.OK, a.postSend(two));
      WorkCompletionBatch wc = FakePair.poll(cq);
      assertEquals(WcStatus.SUCCESS.ordinal(), wc.status(0), "one packet within both MTUs");
      assertEquals(WcStatus.REM_INV_REQ_ERR.ordinal(), wc.status(1), "a 2048-byte packet");
    }
  }

  @Test
  void unmappedMemoryIsEfaultNamingTheGapNotAMemlockHint() {
    // page 1 is never mapped (vm.mmap_min_addr)
    VerbsException e =
        assertThrows(
            VerbsException.class,
            () -> pair.pd.registerMemory(0x1000, 4096, AccessFlags.LOCAL_WRITE));
    assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
    assertTrue(e.getMessage().contains("ibv_reg_mr failed with EFAULT (errno 14)"), e.getMessage());
    assertTrue(e.getMessage().contains("0x1000 is not mapped"), e.getMessage());
    assertTrue(!e.getMessage().contains("RLIMIT_MEMLOCK"), e.getMessage());
  }

  @Test
  void anEnomemFromLibibverbsOnUnmappedMemoryStillNamesTheGap() {
    // with ibv_fork_init, libibverbs' madvise answers ENOMEM before the kernel's EFAULT
    FakeIbverbs.failNext("ibv_reg_mr", 12, -1);
    VerbsException e =
        assertThrows(
            VerbsException.class,
            () -> pair.pd.registerMemory(0x1000, 4096, AccessFlags.LOCAL_WRITE));
    assertTrue(e.getMessage().contains("EFAULT"), e.getMessage());
    assertTrue(
        e.getMessage().contains("0x1000 is not mapped (libibverbs reported errno 12)"),
        e.getMessage());
  }

  @Test
  void readOnlyMemoryRegistersReadableButNotWritable(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ro");
    Files.write(file, new byte[8192]);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      ByteBuffer ro = ch.map(FileChannel.MapMode.READ_ONLY, 0, 8192);
      VerbsException e =
          assertThrows(
              VerbsException.class, () -> pair.pd.registerMemory(ro, AccessFlags.ALL_REMOTE));
      assertTrue(e.getMessage().contains("EFAULT"), e.getMessage());
      assertTrue(e.getMessage().contains("is mapped read-only"), e.getMessage());
      MemoryRegion readable = pair.pd.registerMemory(ro, AccessFlags.REMOTE_READ);
      readable.close();
    }
  }

  @Test
  void everyDeviceHasItsOwnGids() {
    FakeIbverbs.setDevices(new String[] {"fake_mlx5_0", "fake_mlx5_1"}, 1);
    try (IbvProvider p = new IbvProvider(new IbvSettings());
        VerbsContext a = p.open("fake_mlx5_0");
        VerbsContext b = p.open("fake_mlx5_1")) {
      assertNotEquals(a.queryPort(1).gid(), b.queryPort(1).gid());
    }
  }

  @Test
  void thePkeyIndexSettingReachesInitAndIsCheckedAgainstTheTable() {
    FakeIbverbs.setPortLimits(1, 8L << 20, 2);
    try (IbvProvider p = new IbvProvider(new IbvSettings().setPkeyIndex(1));
        VerbsContext ctx = p.open("fake_mlx5_0")) {
      CompletionQueue cq = ctx.createCq(8);
      QueuePair qp = ctx.allocPd().createQp(new QpInitAttributes(cq, cq, 4, 4, 0));
      FakeIbverbs.clearLog();
      qp.toInit(1, AccessFlags.ALL_REMOTE);
      assertTrue(FakeIbverbs.log().contains("pkey_index=1"), FakeIbverbs.log());
    }
    try (IbvProvider p = new IbvProvider(new IbvSettings().setPkeyIndex(2));
        VerbsContext ctx = p.open("fake_mlx5_0")) {
      CompletionQueue cq = ctx.createCq(8);
      QueuePair qp = ctx.allocPd().createQp(new QpInitAttributes(cq, cq, 4, 4, 0));
      VerbsException e =
          assertThrows(VerbsException.class, () -> qp.toInit(1, AccessFlags.ALL_REMOTE));
      assertTrue(e.getMessage().contains("'pkeyIndex' 2"), e.getMessage());
      assertTrue(e.getMessage().contains("(2 entries)"), e.getMessage());
    }
  }

  @Test
  void aQpIssuesNoMoreReadsThanItsPeerAnswers() {
    PortAttributes port = pair.context.queryPort(1);
    CompletionQueue cq = pair.context.createCq(8);
    QueuePair qp = pair.pd.createQp(new QpInitAttributes(cq, cq, 4, 4, 0));
    qp.toInit(1, AccessFlags.ALL_REMOTE);
    qp.toRtr(new QpPeer(pair.a.qpNum(), port.lid(), port.gid(), 3, 4), port.activeMtu());
    FakeIbverbs.clearLog();
    qp.toRts(new RtsAttributes(3, 14, 7, 7));
    assertTrue(FakeIbverbs.log().contains("max_rd_atomic=4"), FakeIbverbs.log());
    assertEquals(16, pair.context.queueLimits().readDepth(), "what this side answers");
    qp.close();
    cq.close();
  }

  @Test
  void thePortsLargestMessageIsRead() {
    FakeIbverbs.setPortLimits(1, 8L << 20, 1);
    try (IbvProvider p = new IbvProvider(new IbvSettings());
        VerbsContext ctx = p.open("fake_mlx5_0")) {
      assertEquals(8L << 20, p.describe("fake_mlx5_0").ports().get(0).maxMessageSize());
      assertEquals(8L << 20, ctx.queueLimits().maxMessageSize());
    }
  }
}
