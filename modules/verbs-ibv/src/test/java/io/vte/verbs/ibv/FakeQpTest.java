package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.Gid;
import io.vte.verbs.PortState;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
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
 * QP creation and the attribute mask and values of each transition, as ibv_modify_qp receives them.
 */
@Tag("fake")
class FakeQpTest {

  // enum ibv_qp_attr_mask, from verbs.h
  private static final int STATE = 1;
  private static final int ACCESS_FLAGS = 1 << 3;
  private static final int PKEY_INDEX = 1 << 4;
  private static final int PORT = 1 << 5;
  private static final int AV = 1 << 7;
  private static final int PATH_MTU = 1 << 8;
  private static final int TIMEOUT = 1 << 9;
  private static final int RETRY_CNT = 1 << 10;
  private static final int RNR_RETRY = 1 << 11;
  private static final int RQ_PSN = 1 << 12;
  private static final int MAX_QP_RD_ATOMIC = 1 << 13;
  private static final int MIN_RNR_TIMER = 1 << 15;
  private static final int SQ_PSN = 1 << 16;
  private static final int MAX_DEST_RD_ATOMIC = 1 << 17;
  private static final int DEST_QPN = 1 << 20;

  private FakeRig rig;

  @BeforeEach
  void open() {
    FakeIbverbs.reset();
    rig = new FakeRig();
  }

  @AfterEach
  void close() {
    rig.close();
    FakeIbverbs.assertNothingLive();
  }

  private static Map<String, String> lastModify() {
    List<String> lines = FakeIbverbs.lines("ibv_modify_qp");
    return FakeIbverbs.fields(lines.get(lines.size() - 1));
  }

  private static String mask(int bits) {
    return "0x" + Integer.toHexString(bits);
  }

  @Test
  void createPassesRcTypeDepthsAndOneSge() {
    Map<String, String> f = FakeIbverbs.fields(FakeIbverbs.lines("ibv_create_qp").get(0));
    assertEquals("2", f.get("type"), "IBV_QPT_RC");
    assertEquals("64", f.get("max_send_wr"), "twice the 32 asked: room for the READ-backs");
    assertEquals("16", f.get("max_recv_wr"));
    assertEquals("1", f.get("max_send_sge"));
    assertEquals("1", f.get("max_recv_sge"));
    assertEquals("64", f.get("max_inline_data"));
    assertEquals("0", f.get("sq_sig_all"));
    assertTrue(rig.qp.qpNum() >= 0x100);
  }

  @Test
  void eachTransitionSetsExactlyItsMaskAndValues() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 5, 1, FakeIbverbs.LINK_ETHERNET, 1);
    rig.qp.toInit(1, AccessFlags.ALL_REMOTE);
    Map<String, String> init = lastModify();
    assertEquals(mask(STATE | PKEY_INDEX | PORT | ACCESS_FLAGS), init.get("mask"));
    assertEquals("1", init.get("state"));
    assertEquals("1", init.get("port"));
    assertEquals("0", init.get("pkey_index"));
    assertEquals("0x7", init.get("access"));
    assertEquals(QpState.INIT, rig.qp.state());

    rig.qp.toRtr(FakeRig.PEER, 4096);
    Map<String, String> rtr = lastModify();
    assertEquals(
        mask(STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER),
        rtr.get("mask"));
    assertEquals("2", rtr.get("state"));
    assertEquals("5", rtr.get("path_mtu"), "IBV_MTU_4096");
    assertEquals(String.valueOf(0x4242), rtr.get("dest_qpn"));
    assertEquals(String.valueOf(0xabcd), rtr.get("rq_psn"));
    assertEquals("16", rtr.get("max_dest_rd_atomic"));
    assertEquals("12", rtr.get("min_rnr_timer"));
    assertEquals("17", rtr.get("dlid"));
    assertEquals("1", rtr.get("ah_port"));
    assertEquals("1", rtr.get("is_global"));
    assertEquals("0", rtr.get("sgid_index"), "the port's selected GID");
    assertEquals("64", rtr.get("hop_limit"));
    assertEquals("01020304050607081112131415161718", rtr.get("dgid"));
    assertEquals(QpState.RTR, rig.qp.state());

    rig.qp.toRts(new RtsAttributes(0x123456, 14, 6, 5));
    Map<String, String> rts = lastModify();
    assertEquals(
        mask(STATE | SQ_PSN | TIMEOUT | RETRY_CNT | RNR_RETRY | MAX_QP_RD_ATOMIC), rts.get("mask"));
    assertEquals("3", rts.get("state"));
    assertEquals(String.valueOf(0x123456), rts.get("sq_psn"));
    assertEquals("14", rts.get("timeout"));
    assertEquals("6", rts.get("retry_cnt"));
    assertEquals("5", rts.get("rnr_retry"));
    assertEquals("16", rts.get("max_rd_atomic"));
    assertEquals(QpState.RTS, rig.qp.state());

    rig.qp.toError();
    assertEquals(
        Map.of("qpn", String.valueOf(rig.qp.qpNum()), "mask", mask(STATE), "state", "6"),
        lastModify());
    assertEquals(QpState.ERR, rig.qp.state());
    rig.qp.toReset();
    assertEquals(mask(STATE), lastModify().get("mask"));
    assertEquals("0", lastModify().get("state"));
    assertEquals(QpState.RESET, rig.qp.state());
  }

  @Test
  void peerWithoutGidConnectsByLidWithoutGrhOnInfiniBand() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 5, FakeIbverbs.LINK_INFINIBAND, 1);
    rig.qp.toInit(1, AccessFlags.LOCAL_WRITE);
    rig.qp.toRtr(new QpPeer(9, 3, Gid.ZERO, 1), 256);
    Map<String, String> rtr = lastModify();
    assertEquals("0", rtr.get("is_global"));
    assertEquals("3", rtr.get("dlid"));
    assertEquals("1", rtr.get("path_mtu"));
  }

  @Test
  void einvalAtRtrIsATypedErrorAndTheQpStaysInInit() {
    rig.qp.toInit(1, AccessFlags.ALL_REMOTE);
    FakeIbverbs.failNext("ibv_modify_qp", 22, QpState.RTR.code());
    VerbsException e = assertThrows(VerbsException.class, () -> rig.qp.toRtr(FakeRig.PEER, 1024));
    assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
    String msg = e.getMessage();
    assertTrue(msg.contains("ibv_modify_qp failed with EINVAL (errno 22)"), msg);
    assertTrue(msg.contains("qp " + rig.qp.qpNum() + " INIT->RTR"), msg);
    assertTrue(
        msg.contains(
            "attr_mask 0x"
                + Integer.toHexString(
                    STATE
                        | AV
                        | PATH_MTU
                        | DEST_QPN
                        | RQ_PSN
                        | MAX_DEST_RD_ATOMIC
                        | MIN_RNR_TIMER)),
        msg);
    assertEquals(QpState.INIT, rig.qp.state());
    rig.qp.toRtr(FakeRig.PEER, 1024);
    assertEquals(QpState.RTR, rig.qp.state());
  }

  @Test
  void illegalTransitionsAndBadValuesNeverReachTheDriver() {
    FakeIbverbs.clearLog();
    VerbsException rts =
        assertThrows(VerbsException.class, () -> rig.qp.toRts(new RtsAttributes(1, 14, 7, 7)));
    assertEquals(VerbsError.INVALID_STATE, rts.error());
    assertTrue(rts.getMessage().contains("RESET -> RTS"), rts.getMessage());
    VerbsException port =
        assertThrows(VerbsException.class, () -> rig.qp.toInit(3, AccessFlags.LOCAL_WRITE));
    assertEquals(VerbsError.INVALID_ARGUMENT, port.error());
    assertThrows(VerbsException.class, () -> rig.qp.toInit(1, AccessFlags.REMOTE_WRITE));
    rig.qp.toInit(1, AccessFlags.LOCAL_WRITE);
    VerbsException mtu = assertThrows(VerbsException.class, () -> rig.qp.toRtr(FakeRig.PEER, 1500));
    assertTrue(mtu.getMessage().contains("1500"), mtu.getMessage());
    assertEquals(1, FakeIbverbs.lines("ibv_modify_qp").size(), FakeIbverbs.log());
  }

  @Test
  void postingFollowsTheStateMachine() {
    WorkRequestBatch batch = WorkRequestBatch.allocate(1);
    batch.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    assertEquals(PostStatus.INVALID_STATE, rig.qp.postSend(batch));
    assertEquals(PostStatus.INVALID_STATE, rig.qp.postRecv(batch));
    rig.qp.toInit(1, AccessFlags.ALL_REMOTE);
    assertEquals(PostStatus.OK, rig.qp.postRecv(batch));
    assertEquals(PostStatus.INVALID_STATE, rig.qp.postSend(batch));
    rig.qp.toRtr(FakeRig.PEER, 1024);
    assertEquals(PostStatus.INVALID_STATE, rig.qp.postSend(batch));
    rig.qp.toRts(new RtsAttributes(1, 14, 7, 7));
    assertEquals(PostStatus.OK, rig.qp.postSend(batch));
    rig.qp.toError();
    assertEquals(PostStatus.OK, rig.qp.postSend(batch), "in ERR the driver accepts and flushes");
    assertEquals(2, FakeIbverbs.lines("post_send").size());
  }

  @Test
  void qpOnAForeignCqIsRejected() {
    try (FakeRig other = new FakeRig()) {
      VerbsException e =
          assertThrows(
              VerbsException.class,
              () -> rig.pd.createQp(new QpInitAttributes(other.cq, rig.cq, 1, 1, 0)));
      assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
      assertTrue(e.getMessage().contains("send CQ"), e.getMessage());
    }
  }

  @Test
  void createFailureIsTyped() {
    FakeIbverbs.failNext("ibv_create_qp", 12, -1);
    VerbsException e =
        assertThrows(
            VerbsException.class,
            () -> rig.pd.createQp(new QpInitAttributes(rig.cq, rig.cq, 10000, 1, 0)));
    assertEquals(VerbsError.NO_MEMORY, e.error());
    // twice the depth asked (READ-back verify)
    assertTrue(e.getMessage().contains("max_send_wr 20000"), e.getMessage());
  }
}
