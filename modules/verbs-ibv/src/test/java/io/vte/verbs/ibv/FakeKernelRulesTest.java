package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.Gid;
import io.vte.verbs.PortState;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
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
 * The rules the fake enforces as a kernel and NIC would, called through the raw shim (so the Java
 * side's own checks do not hide them), and the values the previous shim chose that break them.
 */
@Tag("fake")
class FakeKernelRulesTest {

  private static final int RESET = 0;
  private static final int RTR = 2;
  private static final int RTS = 3;
  private static final Gid PEER_GID = gid("::ffff:10.0.0.9");

  private long ctx;
  private long pd;
  private long cq;
  private long qp;
  private final int[] granted = new int[4];

  @BeforeEach
  void open() {
    FakeIbverbs.reset();
    assertNull(IbvLibrary.failure(), "the shim loads");
  }

  @AfterEach
  void close() {
    if (qp != 0) {
      IbvNative.destroyQp(qp);
    }
    if (cq != 0) {
      IbvNative.destroyCq(cq);
    }
    if (pd != 0) {
      IbvNative.deallocPd(pd);
    }
    if (ctx != 0) {
      IbvNative.closeDevice(ctx);
    }
    FakeIbverbs.assertNothingLive();
  }

  private static Gid gid(String address) {
    return Gid.fromBytes(FakeIbverbs.gid(address));
  }

  /** Opens a raw context, PD, CQ and QP (RESET). */
  private void raw() {
    ctx = IbvNative.openDevice("fake_mlx5_0");
    pd = IbvNative.allocPd(ctx);
    cq = IbvNative.createCq(ctx, 16, 0, 0, new int[1]);
    qp = IbvNative.createQp(pd, cq, cq, 100, 16, 0, granted);
  }

  private void init() {
    IbvNative.modifyQpToInit(qp, 1, 0, AccessFlags.ALL_REMOTE);
  }

  private void rtr(boolean global, int dlid, Gid peer, int sgidIndex, int rdAtomic, int mtu) {
    IbvNative.modifyQpToRtr(
        qp, 1, mtu, 0x77, dlid, global, peer.hi(), peer.lo(), sgidIndex, 0, 0, 5, rdAtomic, 12);
  }

  private static String refused(Runnable call) {
    FakeIbverbs.clearLog();
    VerbsException e = assertThrows(VerbsException.class, call::run);
    assertEquals(VerbsError.INVALID_ARGUMENT, e.error(), e.getMessage());
    List<String> why = FakeIbverbs.refusals();
    assertEquals(1, why.size(), FakeIbverbs.log());
    return why.get(0);
  }

  @Test
  void transitionsFollowTheKernelTable() {
    raw();
    assertTrue(refused(() -> IbvNative.modifyQpState(qp, RTR)).contains("0 -> 2 is not"));
    assertTrue(refused(() -> IbvNative.modifyQpState(qp, RTS)).contains("0 -> 3 is not"));
    init();
    assertTrue(
        refused(() -> IbvNative.modifyQpState(qp, RTR))
            .contains("1 -> 2 misses required attr_mask 0x"));
    assertTrue(
        refused(() -> IbvNative.modifyQpToRts(qp, 1, 14, 7, 7, 16)).contains("1 -> 3 is not"));
    IbvNative.modifyQpState(qp, RESET);
    assertTrue(
        refused(() -> rtr(true, 1, PEER_GID, 0, 16, 3)).contains("0 -> 2 is not"),
        "RTR only from INIT");
  }

  @Test
  void valuesAreCheckedAgainstThePortAndTheDeviceCaps() {
    raw();
    assertEquals(128, granted[1], "max_send_wr 100 is granted as 128, as mlx5 rounds");
    init();
    assertTrue(refused(() -> rtr(true, 1, PEER_GID, 0, 16, 5)).contains("path_mtu 5 above"));
    assertTrue(refused(() -> rtr(true, 1, PEER_GID, 3, 16, 3)).contains("sgid_index 3 names no"));
    rtr(true, 1, PEER_GID, 0, 16, 3);
    assertTrue(refused(() -> IbvNative.modifyQpToRts(qp, 1, 32, 7, 7, 16)).contains("timeout 32"));
    assertTrue(refused(() -> IbvNative.modifyQpToRts(qp, 1, 14, 8, 7, 16)).contains("retry_cnt 8"));
  }

  @Test
  void postingInTheWrongStateOrBeyondTheCapsIsRefusedByTheDriver() {
    raw();
    init();
    WorkRequestBatch batch = WorkRequestBatch.allocate(1);
    batch.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0x1000, 8, 1, 0x2000, 2);
    long r = IbvNative.postSend(qp, DirectMemory.address(batch.buffer()), 1);
    assertEquals(-22L, r, "EINVAL at index 0");
    assertTrue(FakeIbverbs.refusals().get(0).contains("QP state 1 cannot send"));
    VerbsException deep =
        assertThrows(
            VerbsException.class, () -> IbvNative.createQp(pd, cq, cq, 40000, 1, 0, new int[4]));
    assertTrue(deep.getMessage().contains("max_send_wr 40000"), deep.getMessage());
    assertThrows(VerbsException.class, () -> IbvNative.createCq(ctx, 1 << 23, 0, 0, new int[1]));
    assertThrows(VerbsException.class, () -> IbvNative.createCq(ctx, 16, 0, 9, new int[1]));
    long buffer = DirectMemory.allocate(4096);
    try {
      VerbsException access =
          assertThrows(
              VerbsException.class,
              () -> IbvNative.regMr(pd, buffer, 4096, AccessFlags.REMOTE_WRITE, new int[2]));
      assertEquals(VerbsError.INVALID_ARGUMENT, access.error());
    } finally {
      DirectMemory.free(buffer);
    }
  }

  // ---- values the previous shim chose, refused by these rules, and what the provider does now

  @Test
  void oldShimValue1RoceWithoutGrhWhenThePeerSentNoGid() {
    raw();
    init();
    // The old shim decided the GRH from the peer's GID: a zero GID meant is_global=0, on RoCE too.
    assertTrue(refused(() -> rtr(false, 1, Gid.ZERO, 0, 16, 3)).contains("needs a GRH"));
    try (FakeRig rig = new FakeRig()) {
      rig.qp.toInit(1, AccessFlags.ALL_REMOTE);
      VerbsException e =
          assertThrows(
              VerbsException.class, () -> rig.qp.toRtr(new QpPeer(9, 3, Gid.ZERO, 1), 1024));
      assertTrue(e.getMessage().contains("needs a GRH, but the peer sent no GID"), e.getMessage());
    }
  }

  @Test
  void oldShimValue2SgidIndexZeroNamingAnEmptyGid() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 2);
    FakeIbverbs.setGid(1, 0, new byte[16], FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGid(1, 1, gid("::ffff:10.0.0.1").toBytes(), FakeIbverbs.ROCE_V2);
    raw();
    init();
    // The old shim turned "no GID selected" (-1) into sgid_index 0.
    assertTrue(refused(() -> rtr(true, 1, PEER_GID, 0, 16, 3)).contains("sgid_index 0 names no"));
    try (FakeRig rig = new FakeRig()) {
      assertEquals(1, rig.context.queryPort(1).gidIndex());
      rig.connected();
      Map<String, String> f = lastModify(RTR);
      assertEquals("1", f.get("sgid_index"));
    }
  }

  @Test
  void oldShimValue3RdAtomic16AboveTheDeviceCaps() {
    FakeIbverbs.setCaps(32768, 4194303, 4, 8, 256, 4);
    raw();
    init();
    // The old shim always asked for maxRdAtomic (16) on both sides, whatever the device allowed.
    assertTrue(
        refused(() -> rtr(true, 1, PEER_GID, 0, 16, 3))
            .contains("max_dest_rd_atomic 16 above max_qp_rd_atom 4"));
    try (FakeRig rig = new FakeRig()) {
      rig.connected();
      assertEquals("4", lastModify(RTR).get("max_dest_rd_atomic"));
      assertEquals("8", lastModify(RTS).get("max_rd_atomic"));
      assertEquals(QpState.RTS, rig.qp.state());
    }
  }

  @Test
  void oldShimValue4InfiniBandDlidZero() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 5, FakeIbverbs.LINK_INFINIBAND, 1);
    raw();
    init();
    // The old shim passed the peer's LID as it came, 0 included (a peer without subnet manager).
    assertTrue(refused(() -> rtr(false, 0, Gid.ZERO, 0, 16, 3)).contains("needs a non-zero DLID"));
    try (FakeRig rig = new FakeRig()) {
      rig.qp.toInit(1, AccessFlags.ALL_REMOTE);
      VerbsException e =
          assertThrows(
              VerbsException.class, () -> rig.qp.toRtr(new QpPeer(9, 0, Gid.ZERO, 1), 1024));
      assertTrue(e.getMessage().contains("peer sent LID 0"), e.getMessage());
    }
  }

  private static Map<String, String> lastModify(int state) {
    Map<String, String> last = null;
    for (String line : FakeIbverbs.lines("ibv_modify_qp")) {
      Map<String, String> f = FakeIbverbs.fields(line);
      if (String.valueOf(state).equals(f.get("state"))) {
        last = f;
      }
    }
    return last;
  }
}
