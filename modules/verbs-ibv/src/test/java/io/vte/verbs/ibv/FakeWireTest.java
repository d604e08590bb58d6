package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * RC semantics of the fake's wire, through the provider: data moves only when keys, bounds, access
 * and the peer allow it, and every completion (success, error, flush) comes from the fake.
 */
@Tag("fake")
class FakeWireTest extends FakePairFixture {

  @BeforeEach
  void fillSource() {
    for (int i = 0; i < SIZE; i++) {
      src.put(i, (byte) (i * 31 + 7));
    }
  }

  private int post(int opcode, long local, int length, int lkey, long remote, int rkey) {
    WorkRequestBatch batch = WorkRequestBatch.allocate(1);
    batch.add(42, opcode, WrFlags.SIGNALED, local, length, lkey, remote, rkey);
    return pair.a.postSend(batch);
  }

  /** Posts a valid signaled 64-byte WRITE from src to dst. */
  private void writeFirst64Bytes() {
    post(
        WrOpcode.RDMA_WRITE,
        DirectMemory.address(src),
        64,
        srcMr.lkey(),
        DirectMemory.address(dst),
        dstMr.rkey());
  }

  private static int onlyStatus(WorkCompletionBatch wc) {
    assertEquals(1, wc.count(), "one completion");
    return wc.status(0);
  }

  @Test
  void writeThenReadMoveEveryByteAndCompleteFromTheFake() {
    long s = DirectMemory.address(src);
    long d = DirectMemory.address(dst);
    assertEquals(
        PostStatus.OK, post(WrOpcode.RDMA_WRITE, s, SIZE / 2, srcMr.lkey(), d, dstMr.rkey()));
    WorkCompletionBatch wc = FakePair.poll(pair.cqA);
    assertEquals(WcStatus.SUCCESS.ordinal(), onlyStatus(wc));
    assertEquals(WcOpcode.RDMA_WRITE, wc.opcode(0));
    assertEquals(42, wc.wrId(0));
    for (int i = 0; i < SIZE / 2; i++) {
      assertEquals(src.get(i), dst.get(i), "byte " + i);
    }
    assertEquals(0, dst.get(SIZE / 2 + 1), "nothing beyond the length");
    // READ the written half back into the upper half of src's region.
    assertEquals(
        PostStatus.OK,
        post(WrOpcode.RDMA_READ, s + SIZE / 2, SIZE / 2, srcMr.lkey(), d, dstMr.rkey()));
    wc = FakePair.poll(pair.cqA);
    assertEquals(WcStatus.SUCCESS.ordinal(), onlyStatus(wc));
    assertEquals(WcOpcode.RDMA_READ, wc.opcode(0));
    assertEquals(SIZE / 2, wc.byteLen(0));
    for (int i = 0; i < SIZE / 2; i++) {
      assertEquals(src.get(i), src.get(SIZE / 2 + i), "byte " + i + " read back");
    }
    assertEquals(SIZE, FakeIbverbs.count("bytes_moved"));
  }

  @Test
  void badRkeyBoundsOrAccessIsRemAccessErrThenEverythingFlushes() {
    long s = DirectMemory.address(src);
    long d = DirectMemory.address(dst);
    post(WrOpcode.RDMA_WRITE, s, 64, srcMr.lkey(), d, dstMr.rkey() + 100);
    assertEquals(WcStatus.REM_ACCESS_ERR.ordinal(), onlyStatus(FakePair.poll(pair.cqA)));
    assertEquals(0, dst.get(0), "no byte moved");
    post(WrOpcode.RDMA_WRITE, s, 64, srcMr.lkey(), d, dstMr.rkey());
    assertEquals(
        WcStatus.WR_FLUSH_ERR.ordinal(),
        onlyStatus(FakePair.poll(pair.cqA)),
        "the QP is in ERR: later work is flushed, not executed");
    assertEquals(0, FakeIbverbs.count("bytes_moved"));
  }

  @Test
  void outOfBoundsAndMissingRemoteAccessAreRemAccessErr() {
    long s = DirectMemory.address(src);
    long d = DirectMemory.address(dst);
    post(WrOpcode.RDMA_WRITE, s, 64, srcMr.lkey(), d + SIZE - 32, dstMr.rkey());
    assertEquals(WcStatus.REM_ACCESS_ERR.ordinal(), onlyStatus(FakePair.poll(pair.cqA)));
    try (FakePair fresh = new FakePair(new IbvSettings())) {
      ByteBuffer readOnly = ByteBuffer.allocateDirect(4096);
      MemoryRegion ro =
          fresh.pd.registerMemory(readOnly, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ);
      MemoryRegion local = fresh.pd.registerMemory(src, AccessFlags.LOCAL_WRITE);
      WorkRequestBatch batch = WorkRequestBatch.allocate(1);
      batch.add(
          7,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          s,
          64,
          local.lkey(),
          DirectMemory.address(readOnly),
          ro.rkey());
      fresh.a.postSend(batch);
      assertEquals(WcStatus.REM_ACCESS_ERR.ordinal(), onlyStatus(FakePair.poll(fresh.cqA)));
    }
  }

  @Test
  void anInlinePayloadAboveTheGrantedSizeIsRefusedBeforeTheDriverAndTheWorkBeforeItIsPosted() {
    QueuePair wide = pair.pd.createQp(new QpInitAttributes(pair.cqB, pair.cqB, 4, 1, 64));
    assertEquals(64, ((IbvQueuePair) wide).maxInlineData(), "the inline size the fake granted");
    assertEquals(0, ((IbvQueuePair) pair.a).maxInlineData());
    long s = DirectMemory.address(src);
    long d = DirectMemory.address(dst);
    WorkRequestBatch batch = WorkRequestBatch.allocate(2);
    batch.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s, 64, srcMr.lkey(), d, dstMr.rkey());
    batch.add(
        2,
        WrOpcode.RDMA_WRITE,
        WrFlags.SIGNALED | WrFlags.INLINE,
        s + 64,
        16,
        srcMr.lkey(),
        d + 64,
        dstMr.rkey());
    assertEquals(PostStatus.INVALID_STATE, pair.a.postSend(batch));
    assertEquals(1, batch.badIndex(), "the inline WRITE, above the granted 0 bytes");
    WorkCompletionBatch wc = FakePair.poll(pair.cqA);
    assertEquals(WcStatus.SUCCESS.ordinal(), onlyStatus(wc), "the WRITE before it was posted");
    assertEquals(1, wc.wrId(0));
    assertEquals(64, FakeIbverbs.count("bytes_moved"));
    assertEquals(List.of(), FakeIbverbs.refusals(), "the driver never saw it");
    wide.close();
  }

  @Test
  void badLkeyIsLocProtErr() {
    post(
        WrOpcode.RDMA_WRITE,
        DirectMemory.address(src),
        64,
        srcMr.lkey() + 100,
        DirectMemory.address(dst),
        dstMr.rkey());
    assertEquals(WcStatus.LOC_PROT_ERR.ordinal(), onlyStatus(FakePair.poll(pair.cqA)));
  }

  /** ACK timeout 14 (67 ms) x (retry_cnt 7 + 1), as {@link FakePair} connects its QPs. */
  private static final Duration PAIR_RETRIES = Duration.ofNanos((4096L << 14) * 8);

  /**
   * Polls {@code cq} until {@code n} completions came (10 s at most).
   *
   * @return their statuses, in order
   */
  private static List<Integer> awaitStatuses(CompletionQueue cq, int n) {
    List<Integer> statuses = new CopyOnWriteArrayList<>();
    Await.until(
        n + " completions",
        Duration.ofSeconds(10),
        () -> {
          WorkCompletionBatch wc = FakePair.poll(cq);
          for (int i = 0; i < wc.count(); i++) {
            statuses.add(wc.status(i));
          }
          return statuses.size() >= n;
        });
    return statuses;
  }

  /** A dead peer is silence: the requester retransmits and gives up after timeout x (retry + 1). */
  @Test
  void aDestroyedPeerQpIsRetryExcErrOnceTheRetriesRunOut() {
    pair.b.close();
    long start = System.nanoTime();
    writeFirst64Bytes();
    assertEquals(0, FakePair.poll(pair.cqA).count(), "nothing answers, nothing fails yet");
    assertEquals(List.of(WcStatus.RETRY_EXC_ERR.ordinal()), awaitStatuses(pair.cqA, 1));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(
        took.compareTo(PAIR_RETRIES) >= 0, "failed after " + took + ", before " + PAIR_RETRIES);
    assertEquals(7, FakeIbverbs.count("retransmits"), "retry_cnt retries, then the failure");
  }

  /**
   * @return two QPs on {@code cq}: the first in RTS towards the second, which stays in INIT (the
   *     passive side of a handshake whose reply has not reached the active side yet)
   */
  private QueuePair[] readyTowardsOneInInit(
      CompletionQueue cq, PortAttributes port, RtsAttributes rts) {
    QueuePair ready = pair.pd.createQp(new QpInitAttributes(cq, cq, 32, 32, 0));
    QueuePair waiting = pair.pd.createQp(new QpInitAttributes(cq, cq, 32, 32, 0));
    ready.toInit(1, AccessFlags.ALL_REMOTE);
    waiting.toInit(1, AccessFlags.ALL_REMOTE);
    ready.toRtr(new QpPeer(waiting.qpNum(), port.lid(), port.gid(), 2), port.activeMtu());
    ready.toRts(rts);
    return new QueuePair[] {ready, waiting};
  }

  /**
   * The passive side of a handshake may post before the active side moved its QP to RTR: the peer's
   * NIC drops those packets and ours sends them again one ACK timeout later, so the work waits for
   * that retransmit (not just for the peer QP) and then runs, in order; only a peer QP that stays
   * unready past timeout x (retry_cnt + 1) ends it RETRY_EXC_ERR.
   */
  @Test
  void workToAPeerQpNotYetReadyWaitsForTheRetransmitOrEndsRetryExcErrWhenTheRetriesRunOut() {
    PortAttributes port = pair.context.queryPort(1);
    CompletionQueue cq = pair.context.createCq(64);
    // ACK timeout 17: 537 ms between tries
    Duration ackTimeout = Duration.ofNanos(4096L << 17);
    QueuePair[] qps = readyTowardsOneInInit(cq, port, new RtsAttributes(1, 17, 7, 7));
    QueuePair early = qps[0];
    QueuePair late = qps[1];
    long s = DirectMemory.address(src);
    long d = DirectMemory.address(dst);
    WorkRequestBatch two = WorkRequestBatch.allocate(2);
    two.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s, 64, srcMr.lkey(), d, dstMr.rkey());
    two.add(
        2, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, s + 64, 64, srcMr.lkey(), d + 64, dstMr.rkey());
    long start = System.nanoTime();
    assertEquals(PostStatus.OK, early.postSend(two));
    assertEquals(0, FakePair.poll(cq).count(), "the peer QP is in INIT: nothing answered yet");
    assertEquals(0, FakeIbverbs.count("bytes_moved"));
    late.toRtr(new QpPeer(early.qpNum(), port.lid(), port.gid(), 1), port.activeMtu());
    assertEquals(0, FakePair.poll(cq).count(), "the dropped packets go again at the retransmit");
    WorkCompletionBatch ran = WorkCompletionBatch.allocate(64);
    Await.until("the retransmit", Duration.ofSeconds(10), () -> cq.poll(ran) > 0);
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertTrue(took.compareTo(ackTimeout) >= 0, "ran after " + took + ", before the ACK timeout");
    assertEquals(1, FakeIbverbs.count("retransmits"));
    assertEquals(2, ran.count(), "both ran at the retransmit after the peer QP reached RTR");
    assertEquals(1, ran.wrId(0));
    assertEquals(WcStatus.SUCCESS.ordinal(), ran.status(0));
    assertEquals(2, ran.wrId(1));
    assertEquals(WcStatus.SUCCESS.ordinal(), ran.status(1));
    for (int i = 0; i < 128; i++) {
      assertEquals(src.get(i), dst.get(i), "byte " + i);
    }

    // 4.096 us x 2^10 x (1 + 1): about 8 ms of retransmission, then RETRY_EXC_ERR and a flush.
    QueuePair[] stuck = readyTowardsOneInInit(cq, port, new RtsAttributes(1, 10, 1, 7));
    QueuePair hopeful = stuck[0];
    QueuePair never = stuck[1];
    assertEquals(PostStatus.OK, hopeful.postSend(two));
    assertEquals(
        List.of(WcStatus.RETRY_EXC_ERR.ordinal(), WcStatus.WR_FLUSH_ERR.ordinal()),
        awaitStatuses(cq, 2));
    for (QueuePair qp : List.of(early, late, hopeful, never)) {
      qp.close();
    }
    cq.close();
  }

  @Test
  void aDownPortRaisesPortErrAndFailsTrafficUntilItIsActiveAgain() {
    List<AsyncEvent> events = new CopyOnWriteArrayList<>();
    pair.context.setAsyncEventHandler(events::add);
    FakeIbverbs.setPortState(1, PortState.DOWN.code());
    Await.until(
        "PORT_ERR delivered",
        Duration.ofSeconds(10),
        () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ERR && e.port() == 1));
    writeFirst64Bytes();
    assertEquals(List.of(WcStatus.RETRY_EXC_ERR.ordinal()), awaitStatuses(pair.cqA, 1));
    FakeIbverbs.setPortState(1, PortState.ACTIVE.code());
    Await.until(
        "PORT_ACTIVE delivered",
        Duration.ofSeconds(10),
        () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ACTIVE));
    assertEquals(PortState.ACTIVE, pair.context.queryPort(1).state());
  }

  @Test
  void sendLandsInAPostedReceiveAndErrFlushesTheRest() {
    long s = DirectMemory.address(src);
    long d = DirectMemory.address(dst);
    WorkRequestBatch recv = WorkRequestBatch.allocate(2);
    recv.add(1, WrOpcode.RECV, WrFlags.NONE, d, 128, dstMr.lkey(), 0, 0);
    recv.add(2, WrOpcode.RECV, WrFlags.NONE, d + 128, 128, dstMr.lkey(), 0, 0);
    assertEquals(PostStatus.OK, pair.b.postRecv(recv));
    assertEquals(PostStatus.OK, post(WrOpcode.SEND, s, 100, srcMr.lkey(), 0, 0));
    assertEquals(WcStatus.SUCCESS.ordinal(), onlyStatus(FakePair.poll(pair.cqA)));
    WorkCompletionBatch received = FakePair.poll(pair.cqB);
    assertEquals(WcStatus.SUCCESS.ordinal(), onlyStatus(received));
    assertEquals(WcOpcode.RECV, received.opcode(0));
    assertEquals(100, received.byteLen(0));
    assertEquals(src.get(99), dst.get(99));
    pair.b.toError();
    WorkCompletionBatch flushed = FakePair.poll(pair.cqB);
    assertEquals(WcStatus.WR_FLUSH_ERR.ordinal(), onlyStatus(flushed));
    assertEquals(2, flushed.wrId(0));
    assertTrue(FakeIbverbs.refusals().isEmpty(), FakeIbverbs.refusals().toString());
  }
}
