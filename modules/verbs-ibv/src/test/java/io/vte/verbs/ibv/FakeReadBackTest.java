package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueueLimits;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * READ-back verify ({@link ReadBackVerifier}) on the fake: a work request flagged {@link
 * WrFlags#INTEGRITY} goes to the HCA as itself, unsignaled, and a READ of the same remote range
 * into scratch; it completes once, as itself, {@code SUCCESS} when the bytes read back match and
 * {@code INTEGRITY_ERR} when the fake damaged what landed ({@link FakeIbverbs#corruptLanded}).
 */
@Tag("fake")
class FakeReadBackTest extends FakePairFixture {

  private static final int HALF = SIZE / 2;
  private static final int FLAGS = WrFlags.SIGNALED | WrFlags.INTEGRITY;

  private long s;
  private long d;

  @BeforeEach
  void fillSource() {
    for (int i = 0; i < SIZE; i++) {
      src.put(i, (byte) (i * 31 + 7));
    }
    s = DirectMemory.address(src);
    d = DirectMemory.address(dst);
  }

  private int post(long wrId, int opcode, int flags, long local, int length, long remote) {
    return post(pair.a, wrId, opcode, flags, local, length, srcMr.lkey(), remote, dstMr.rkey());
  }

  private static int post(
      QueuePair qp,
      long wrId,
      int opcode,
      int flags,
      long local,
      int length,
      int lkey,
      long remote,
      int rkey) {
    WorkRequestBatch batch = WorkRequestBatch.allocate(1);
    batch.add(wrId, opcode, flags, local, length, lkey, remote, rkey);
    return qp.postSend(batch);
  }

  private WorkCompletionBatch onlyCompletion() {
    WorkCompletionBatch wc = FakePair.poll(pair.cqA);
    assertEquals(1, wc.count(), "exactly one completion for the one work request");
    return wc;
  }

  private static boolean landedIntact(long from, long to, int length) {
    for (int i = 0; i < length; i++) {
      if (DirectMemory.getByte(from + i) != DirectMemory.getByte(to + i)) {
        return false;
      }
    }
    return true;
  }

  /** The lengths of the regions registered since the log was cleared. */
  private static List<Long> registered() {
    return FakeIbverbs.lines("ibv_reg_mr").stream()
        .map(l -> Long.parseLong(FakeIbverbs.fields(l).get("length")))
        .toList();
  }

  @Test
  void aVerifiedWriteLandsAndCompletesOnceAsTheWriteAfterAReadOfTheSameRange() {
    assertTrue(pair.context.checksPayloadIntegrity(), "ibverbs checks by default");
    FakeIbverbs.clearLog();
    assertEquals(PostStatus.OK, post(42, WrOpcode.RDMA_WRITE, FLAGS, s, HALF, d + 128));
    WorkCompletionBatch wc = onlyCompletion();
    assertEquals(42, wc.wrId(0));
    assertEquals(WcStatus.SUCCESS.code(), wc.status(0));
    assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
    assertTrue(landedIntact(s, d + 128, HALF), "the bytes landed");
    List<String> posts = FakeIbverbs.lines("post_send");
    assertEquals(2, posts.size(), "the WRITE and its READ-back: " + posts);
    Map<String, String> write = FakeIbverbs.fields(posts.get(0));
    Map<String, String> read = FakeIbverbs.fields(posts.get(1));
    assertEquals("0", write.get("opcode"), "an RDMA WRITE");
    assertEquals(0, Integer.decode(write.get("flags")), "unsignaled, no VTE flag: " + write);
    assertEquals("4", read.get("opcode"), "an RDMA READ");
    assertEquals(WrFlags.SIGNALED, Integer.decode(read.get("flags")), "signaled: " + read);
    assertEquals(write.get("remote_addr"), read.get("remote_addr"), "of the same range");
    assertEquals(write.get("length"), read.get("length"));
    assertNotEquals(write.get("lkey"), read.get("lkey"), "into the provider's scratch");
    assertEquals(List.of(), FakeIbverbs.refusals());
  }

  @Test
  void bytesDamagedAtTheTargetAfterTheWriteAreIntegrityErrAndTheQpGoesOn() {
    FakeIbverbs.corruptLanded(1, 0);
    assertEquals(PostStatus.OK, post(7, WrOpcode.RDMA_WRITE, FLAGS, s, HALF, d));
    WorkCompletionBatch wc = onlyCompletion();
    assertEquals(7, wc.wrId(0));
    assertEquals(WcStatus.INTEGRITY_ERR.code(), wc.status(0), "the damage was found");
    assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
    assertEquals(1, FakeIbverbs.count("landed_corrupted"));
    assertFalse(landedIntact(s, d, HALF), "the damage is there");

    assertEquals(PostStatus.OK, post(8, WrOpcode.RDMA_WRITE, FLAGS, s, HALF, d));
    wc = onlyCompletion();
    assertEquals(WcStatus.SUCCESS.code(), wc.status(0), "the QP is still in RTS");
    assertTrue(landedIntact(s, d, HALF), "the second copy is sound");
  }

  @Test
  void withoutTheFlagTheSameDamageLandsUnnoticed() {
    FakeIbverbs.corruptLanded(1, 0);
    assertEquals(PostStatus.OK, post(9, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s, HALF, d));
    assertEquals(WcStatus.SUCCESS.code(), onlyCompletion().status(0));
    assertFalse(landedIntact(s, d, HALF), "damaged silently");
  }

  @Test
  void aVerifiedReadIsReadTwiceAndALandingDamagedLocallyIsIntegrityErr() {
    DirectMemory.copy(s, d, HALF);
    FakeIbverbs.corruptLanded(0, 1);
    assertEquals(PostStatus.OK, post(3, WrOpcode.RDMA_READ, FLAGS, s + HALF, HALF, d));
    WorkCompletionBatch wc = onlyCompletion();
    assertEquals(3, wc.wrId(0));
    assertEquals(WcStatus.INTEGRITY_ERR.code(), wc.status(0));
    assertEquals(WcOpcode.RDMA_READ, wc.opcode(0));

    assertEquals(PostStatus.OK, post(4, WrOpcode.RDMA_READ, FLAGS, s + HALF, HALF, d));
    wc = onlyCompletion();
    assertEquals(WcStatus.SUCCESS.code(), wc.status(0));
    assertEquals(HALF, wc.byteLen(0), "a READ's byte count, as unverified");
    assertTrue(landedIntact(d, s + HALF, HALF));
  }

  @Test
  void anErrorOfTheWriteIsItsOnlyCompletionAndLaterVerifiedWorkFlushesOnceEach() {
    assertEquals(
        PostStatus.OK,
        post(pair.a, 5, WrOpcode.RDMA_WRITE, FLAGS, s, 64, srcMr.lkey(), d, dstMr.rkey() + 100));
    WorkCompletionBatch wc = onlyCompletion();
    assertEquals(5, wc.wrId(0));
    assertEquals(WcStatus.REM_ACCESS_ERR.code(), wc.status(0), "the WRITE's own status");
    WorkRequestBatch batch = WorkRequestBatch.allocate(4);
    for (int i = 0; i < 4; i++) {
      batch.add(100 + i, WrOpcode.RDMA_WRITE, FLAGS, s, 64, srcMr.lkey(), d, dstMr.rkey());
    }
    assertEquals(PostStatus.OK, pair.a.postSend(batch));
    wc = FakePair.poll(pair.cqA);
    assertEquals(4, wc.count(), "one flush per work request, not per half");
    for (int i = 0; i < 4; i++) {
      assertEquals(100 + i, wc.wrId(i));
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wc.status(i));
    }
  }

  @Test
  void aReadBackRefusedByTheTargetIsTheWorkRequestsError() {
    // The target region takes WRITEs but not READs: the WRITE lands, the READ-back cannot.
    ByteBuffer writeOnly = ByteBuffer.allocateDirect(SIZE);
    MemoryRegion mr =
        pair.pd.registerMemory(writeOnly, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE);
    long w = DirectMemory.address(writeOnly);
    assertEquals(
        PostStatus.OK,
        post(pair.a, 6, WrOpcode.RDMA_WRITE, FLAGS, s, 64, srcMr.lkey(), w, mr.rkey()));
    WorkCompletionBatch wc = onlyCompletion();
    assertEquals(6, wc.wrId(0));
    assertEquals(WcStatus.REM_ACCESS_ERR.code(), wc.status(0));
    assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
    mr.close();
  }

  @Test
  void aMixedBatchAtFullDepthPostsWithoutRunningOutOfSendQueueAndCompletesInOrder() {
    int depth = 32; // FakePair's QPs
    for (int round = 0; round < 3; round++) {
      WorkRequestBatch batch = WorkRequestBatch.allocate(depth);
      // WRITEs from src and READs into dst's upper half, of dst's lower half: no READ lands in a
      // WRITE's source (its CRC is taken at post time, as the application hands it over).
      int piece = HALF / depth;
      for (int i = 0; i < depth; i++) {
        int opcode = i % 3 == 2 ? WrOpcode.RDMA_READ : WrOpcode.RDMA_WRITE;
        long local = (opcode == WrOpcode.RDMA_READ ? d + HALF : s) + (long) i * piece;
        batch.add(
            i,
            opcode,
            round == 0 || i % 2 == 0 ? FLAGS : WrFlags.SIGNALED, // round 0: 2 WQEs for each
            local,
            piece,
            opcode == WrOpcode.RDMA_READ ? dstMr.lkey() : srcMr.lkey(),
            d + (long) i * piece,
            dstMr.rkey());
      }
      assertEquals(PostStatus.OK, pair.a.postSend(batch), "round " + round);
      WorkCompletionBatch wc = FakePair.poll(pair.cqA);
      assertEquals(depth, wc.count(), "round " + round);
      for (int i = 0; i < depth; i++) {
        assertEquals(i, wc.wrId(i), "in posting order");
        assertEquals(WcStatus.SUCCESS.code(), wc.status(i), "round " + round + " wr " + i);
      }
    }
    assertEquals(List.of(), FakeIbverbs.refusals(), "no send queue ran full");
  }

  @Test
  void aPollOfOneStillGetsTheVerifiedCompletion() {
    assertEquals(PostStatus.OK, post(11, WrOpcode.RDMA_WRITE, FLAGS, s, HALF, d));
    WorkCompletionBatch one = WorkCompletionBatch.allocate(1);
    assertEquals(1, pair.cqA.poll(one));
    assertEquals(11, one.wrId(0));
    assertEquals(0, pair.cqA.poll(one), "nothing else");
  }

  @Test
  void scratchIsRegisteredOnFirstUseGrowsForALargerSliceAndIsFreedWithItsQp() {
    CompletionQueue cq = pair.context.createCq(8);
    QueuePair qp = pair.pd.createQp(new QpInitAttributes(cq, cq, 4, 1, 0));
    long mrs = FakeIbverbs.count("mr");
    qp.toInit(1, AccessFlags.ALL_REMOTE);
    // a QP looped back on itself
    PortAttributes port = pair.context.queryPort(1);
    qp.toRtr(new QpPeer(qp.qpNum(), port.lid(), port.gid(), 1), port.activeMtu());
    qp.toRts(new RtsAttributes(1, 14, 7, 7));
    FakeIbverbs.clearLog();
    assertEquals(
        PostStatus.OK,
        post(qp, 1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s, 100, srcMr.lkey(), d, dstMr.rkey()));
    assertEquals(List.of(), registered(), "nothing before a verified post");
    assertEquals(
        PostStatus.OK,
        post(qp, 2, WrOpcode.RDMA_WRITE, FLAGS, s, 100, srcMr.lkey(), d, dstMr.rkey()));
    assertEquals(List.of(4L * ReadBackScratch.MIN_SLOT), registered(), "4 slots of 4 KiB");
    assertEquals(mrs + 1, FakeIbverbs.count("mr"), "one scratch region");
    assertEquals(
        PostStatus.OK,
        post(qp, 3, WrOpcode.RDMA_WRITE, FLAGS, s, SIZE, srcMr.lkey(), d, dstMr.rkey()));
    assertEquals(mrs + 2, FakeIbverbs.count("mr"), "the smaller one waits for its READ-back");
    WorkCompletionBatch wc = FakePair.poll(cq);
    assertEquals(3, wc.count());
    assertEquals(WcStatus.SUCCESS.code(), wc.status(2));
    assertEquals(
        List.of(4L * ReadBackScratch.MIN_SLOT, 4L * SIZE),
        registered(),
        "grown to 4 slots of the larger size");
    assertEquals(mrs + 1, FakeIbverbs.count("mr"), "the smaller region went once drained");
    assertEquals(
        PostStatus.OK,
        post(qp, 4, WrOpcode.RDMA_WRITE, FLAGS, s, 100, srcMr.lkey(), d, dstMr.rkey()));
    assertEquals(1, FakePair.poll(cq).count());
    assertEquals(2, registered().size(), "a smaller slice fits the larger slots");
    qp.close();
    assertEquals(mrs, FakeIbverbs.count("mr"), "the scratch went with its QP");
    cq.close();
  }

  @Test
  void scratchTheHostCannotPinRefusesThatWorkRequestAsAFullQueueAndTheWorkBeforeItGoes() {
    FakeIbverbs.failNext("ibv_reg_mr", 12, -1);
    WorkRequestBatch batch = WorkRequestBatch.allocate(2);
    batch.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s, 64, srcMr.lkey(), d, dstMr.rkey());
    batch.add(2, WrOpcode.RDMA_WRITE, FLAGS, s, 64, srcMr.lkey(), d, dstMr.rkey());
    assertEquals(PostStatus.QUEUE_FULL, pair.a.postSend(batch));
    assertEquals(1, batch.badIndex(), "the unchecked one before it was posted");
    WorkCompletionBatch wc = onlyCompletion();
    assertEquals(1, wc.wrId(0));
    assertEquals(PostStatus.OK, post(3, WrOpcode.RDMA_WRITE, FLAGS, s, 64, d));
    wc = onlyCompletion();
    assertEquals(3, wc.wrId(0), "nothing of the refused one is left in the ring");
    assertEquals(WcStatus.SUCCESS.code(), wc.status(0));
  }

  @Test
  void verifyHalvesTheQueueLimitsAndRefusesADepthAboveHalfNamingTheOption() {
    QueueLimits limits = pair.context.queueLimits();
    assertEquals(32768 / 2, limits.maxQpWr());
    assertEquals(4194303 / 2, limits.maxCqe());
    CompletionQueue cq = pair.context.createCq(8);
    VerbsException e =
        assertThrows(
            VerbsException.class,
            () -> pair.pd.createQp(new QpInitAttributes(cq, cq, 32768 / 2 + 1, 1, 0)));
    assertTrue(e.getMessage().contains("readBackVerify"), e.getMessage());
    cq.close();
  }

  @Test
  void withTheOptionOffNothingIsCheckedAndTheLimitsAreTheDevices() {
    try (FakePair off = new FakePair(new IbvSettings().setReadBackVerify(false))) {
      assertFalse(off.context.checksPayloadIntegrity());
      assertEquals(32768, off.context.queueLimits().maxQpWr());
      assertEquals(4194303, off.context.queueLimits().maxCqe());
    }
    assertEquals(
        false,
        IbvSettings.fromJson(new JsonObject().put("readBackVerify", false)).readBackVerify());
  }
}
