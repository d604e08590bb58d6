package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.PostStatus;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Work requests and completions through the flat buffers, the shim and the fake's
 * ibv_post_send/ibv_poll_cq.
 */
@Tag("fake")
class FakeMarshallingTest {

  private FakeRig rig;

  @BeforeEach
  void open() {
    FakeIbverbs.reset();
    rig = new FakeRig().connected();
    FakeIbverbs.recordOnly(true); // the work requests name no real memory: only their fields matter
    FakeIbverbs.clearLog();
  }

  @AfterEach
  void close() {
    rig.close();
    FakeIbverbs.assertNothingLive();
  }

  private static String hex(long v) {
    return "0x" + Long.toHexString(v);
  }

  @Test
  void everyFieldOfEverySendOpcodeReachesIbvSendWr() {
    int[] opcodes = {
      WrOpcode.RDMA_WRITE,
      WrOpcode.RDMA_WRITE_WITH_IMM,
      WrOpcode.SEND,
      WrOpcode.SEND_WITH_IMM,
      WrOpcode.RDMA_READ
    };
    int[] flags = {
      WrFlags.SIGNALED,
      WrFlags.NONE,
      WrFlags.SIGNALED | WrFlags.SOLICITED,
      WrFlags.FENCE | WrFlags.INLINE,
      WrFlags.SIGNALED | WrFlags.FENCE
    };
    // lengths above 2^31 (unsigned), but an inline payload within the rig QP's granted 64 bytes
    int[] lengths = new int[opcodes.length];
    for (int i = 0; i < opcodes.length; i++) {
      lengths[i] = (flags[i] & WrFlags.INLINE) != 0 ? 48 + i : 0xFFFF_FFF0 + i;
    }
    WorkRequestBatch batch = WorkRequestBatch.allocate(8);
    for (int i = 0; i < opcodes.length; i++) {
      batch.add(
          0xFEDCBA9876543210L + i,
          opcodes[i],
          flags[i],
          0x7f00_0000_1000L + i,
          lengths[i],
          0x8000_0001 + i,
          0x5500_0000_2000L + i,
          0x9000_0002 + i,
          0xCAFE_0000 + i);
    }
    assertEquals(PostStatus.OK, rig.qp.postSend(batch));
    assertEquals(-1, batch.badIndex());
    assertEquals(
        List.of("ibv_post_send qpn=" + rig.qp.qpNum() + " chain=5"),
        FakeIbverbs.lines("ibv_post_send"));
    List<String> wrs = FakeIbverbs.lines("post_send");
    assertEquals(5, wrs.size());
    for (int i = 0; i < wrs.size(); i++) {
      Map<String, String> f = FakeIbverbs.fields(wrs.get(i));
      assertEquals(Long.toUnsignedString(0xFEDCBA9876543210L + i), f.get("wr_id"));
      assertEquals(String.valueOf(opcodes[i]), f.get("opcode"), "ibv_wr_opcode");
      assertEquals(hex(flags[i]), f.get("flags"), "ibv_send_flags");
      assertEquals("1", f.get("num_sge"));
      assertEquals(hex(0x7f00_0000_1000L + i), f.get("addr"));
      assertEquals(Integer.toUnsignedString(lengths[i]), f.get("length"));
      assertEquals(Integer.toUnsignedString(0x8000_0001 + i), f.get("lkey"));
      assertEquals(hex(0x5500_0000_2000L + i), f.get("remote_addr"));
      assertEquals(Integer.toUnsignedString(0x9000_0002 + i), f.get("rkey"));
      assertEquals(
          "0x" + Integer.toHexString(0xCAFE_0000 + i), f.get("imm"), "imm_data in host order");
    }
  }

  @Test
  void largeBatchesArePostedInOrderAsChainedChunks() {
    WorkRequestBatch batch = WorkRequestBatch.allocate(150);
    for (int i = 0; i < 150; i++) {
      batch.add(i, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0x1000 + i, 64, 1, 0x2000 + i, 2);
    }
    assertEquals(PostStatus.OK, rig.qp.postSend(batch));
    List<String> chains = FakeIbverbs.lines("ibv_post_send");
    assertEquals(3, chains.size(), chains.toString());
    assertTrue(
        chains.get(0).endsWith("chain=64")
            && chains.get(1).endsWith("chain=64")
            && chains.get(2).endsWith("chain=22"),
        chains.toString());
    List<String> wrs = FakeIbverbs.lines("post_send");
    assertEquals(150, wrs.size());
    for (int i = 0; i < 150; i++) {
      assertEquals(String.valueOf(i), FakeIbverbs.fields(wrs.get(i)).get("wr_id"));
    }
  }

  @Test
  void failedPostReportsTheBadIndexAndErrno() {
    WorkRequestBatch batch = WorkRequestBatch.allocate(100);
    for (int i = 0; i < 100; i++) {
      batch.add(i, WrOpcode.RDMA_READ, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    }
    FakeIbverbs.failNext("ibv_post_send", 12, 5);
    assertEquals(PostStatus.QUEUE_FULL, rig.qp.postSend(batch));
    assertEquals(5, batch.badIndex());
    assertEquals(5, FakeIbverbs.lines("post_send").size());

    FakeIbverbs.clearLog();
    batch.clear();
    for (int i = 0; i < 100; i++) {
      batch.add(i, i == 70 ? 99 : WrOpcode.RDMA_READ, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    }
    assertEquals(PostStatus.INVALID_STATE, rig.qp.postSend(batch));
    assertEquals(70, batch.badIndex(), "the bad index counts across chunks");
    assertEquals(70, FakeIbverbs.lines("post_send").size());
    assertEquals(
        List.of(64, 6),
        FakeIbverbs.lines("ibv_post_send").stream()
            .map(l -> Integer.parseInt(FakeIbverbs.fields(l).get("chain")))
            .toList());
  }

  @Test
  void invalidOpcodeOrFlagStopsTheBatchThereAfterPostingWhatPrecedesIt() {
    WorkRequestBatch batch = WorkRequestBatch.allocate(4);
    batch.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    batch.add(2, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    batch.add(3, 77, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    batch.add(4, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    assertEquals(PostStatus.INVALID_STATE, rig.qp.postSend(batch));
    assertEquals(2, batch.badIndex());
    assertEquals(2, FakeIbverbs.lines("post_send").size());

    FakeIbverbs.clearLog();
    batch.clear();
    batch.add(1, WrOpcode.RDMA_WRITE, 0x40, 0x1000, 8, 1, 0x2000, 2);
    assertEquals(PostStatus.INVALID_STATE, rig.qp.postSend(batch));
    assertEquals(0, batch.badIndex());
    assertEquals(0, FakeIbverbs.lines("ibv_post_send").size(), "nothing reaches the driver");
  }

  @Test
  void receivesCarryIdAddressLengthAndKey() {
    WorkRequestBatch batch = WorkRequestBatch.allocate(70);
    for (int i = 0; i < 70; i++) {
      batch.add(
          0x8000_0000_0000_0000L | i,
          WrOpcode.RECV,
          WrFlags.NONE,
          0x3000 + i * 64L,
          64 + i,
          0x77 + i,
          0,
          0);
    }
    assertEquals(PostStatus.OK, rig.qp.postRecv(batch));
    assertEquals(2, FakeIbverbs.lines("ibv_post_recv").size());
    List<String> wrs = FakeIbverbs.lines("post_recv");
    assertEquals(70, wrs.size());
    for (int i = 0; i < 70; i++) {
      Map<String, String> f = FakeIbverbs.fields(wrs.get(i));
      assertEquals(Long.toUnsignedString(0x8000_0000_0000_0000L | i), f.get("wr_id"));
      assertEquals(hex(0x3000 + i * 64L), f.get("addr"));
      assertEquals(String.valueOf(64 + i), f.get("length"));
      assertEquals(String.valueOf(0x77 + i), f.get("lkey"));
      assertEquals("1", f.get("num_sge"));
    }
    FakeIbverbs.failNext("ibv_post_recv", 12, 3);
    assertEquals(PostStatus.QUEUE_FULL, rig.qp.postRecv(batch));
    assertEquals(3, batch.badIndex());
  }

  @Test
  void everyCompletionStatusAndFieldComesBackInOrder() {
    int statuses = WcStatus.values().length;
    int[] opcodes = {0, 1, 2, 128, 129};
    for (int s = 0; s < statuses; s++) {
      boolean imm = s % 2 == 1;
      assertTrue(
          FakeIbverbs.pushCompletion(
              0,
              0xA000_0000_0000_0000L + s,
              s,
              opcodes[s % opcodes.length],
              0xFFFF_0000 + s,
              rig.qp.qpNum(),
              0x100 + s,
              0xBEEF_0000 + s,
              imm ? FakeIbverbs.WC_WITH_IMM : 0));
    }
    WorkCompletionBatch out = WorkCompletionBatch.allocate(8);
    int seen = 0;
    int n;
    while ((n = rig.cq.poll(out)) > 0) {
      assertEquals(n, out.count());
      for (int i = 0; i < n; i++, seen++) {
        assertEquals(0xA000_0000_0000_0000L + seen, out.wrId(i));
        assertEquals(WcStatus.values()[seen], WcStatus.of(out.status(i)));
        assertEquals(opcodes[seen % opcodes.length], out.opcode(i));
        assertEquals(0xFFFF_0000 + seen, out.byteLen(i));
        assertEquals(rig.qp.qpNum(), out.qpNum(i));
        assertEquals(0x100 + seen, out.vendorErr(i));
        assertEquals(
            seen % 2 == 1 ? 0xBEEF_0000 + seen : 0,
            out.immData(i),
            "imm only with IBV_WC_WITH_IMM");
      }
    }
    assertEquals(0, n);
    assertEquals(statuses, seen);
  }

  @Test
  void onePollFillsABatchLargerThanTheNativeChunk() {
    for (int i = 0; i < 150; i++) {
      FakeIbverbs.pushCompletion(0, i, 0, 1, 64, rig.qp.qpNum(), 0, 0, 0);
    }
    WorkCompletionBatch out = WorkCompletionBatch.allocate(200);
    assertEquals(150, rig.cq.poll(out));
    for (int i = 0; i < 150; i++) {
      assertEquals(i, out.wrId(i));
    }
    assertEquals(0, rig.cq.poll(out));
    assertEquals(0, out.count());
  }

  @Test
  void pollErrorIsACqErrorCode() {
    FakeIbverbs.failNext("ibv_poll_cq", 5, 0);
    WorkCompletionBatch out = WorkCompletionBatch.allocate(4);
    assertEquals(PostStatus.CQ_ERROR, rig.cq.poll(out));
    assertEquals(0, out.count());
  }

  @Test
  void closedObjectsAnswerClosedWithoutTouchingTheDriver() {
    WorkRequestBatch batch = WorkRequestBatch.allocate(1);
    batch.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    rig.qp.close();
    rig.cq.close();
    FakeIbverbs.clearLog();
    assertEquals(PostStatus.CLOSED, rig.qp.postSend(batch));
    assertEquals(PostStatus.CLOSED, rig.qp.postRecv(batch));
    assertEquals(PostStatus.CLOSED, rig.cq.poll(WorkCompletionBatch.allocate(1)));
    assertEquals(PostStatus.CLOSED, rig.cq.requestNotify());
    assertEquals("", FakeIbverbs.log());
  }
}
