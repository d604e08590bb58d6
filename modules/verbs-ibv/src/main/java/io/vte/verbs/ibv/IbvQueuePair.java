package io.vte.verbs.ibv;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.Gid;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.ibv.device.IbvGidEntry;
import io.vte.verbs.ibv.device.IbvMtu;

/**
 * An RC {@code ibv_qp}. Transitions are checked here (same contract as soft verbs) before the shim
 * sets the attribute mask of each one; posting is one JNI call per batch.
 */
final class IbvQueuePair implements QueuePair {

  private final IbvProtectionDomain pd;
  private final IbvContext context;
  private final NativeHandle handle;
  private final int qpNum;
  private final int maxInlineData;
  private final IbvCompletionQueue sendCq;
  private final IbvCompletionQueue recvCq;
  private volatile QpState state = QpState.RESET;
  private int port;

  /**
   * Reads back its work requests flagged {@link WrFlags#INTEGRITY}; null when the context does not.
   */
  private final ReadBackVerifier verifier;

  /** RDMA READs the peer QP answers at once, as it said in the handshake; 0 when not known. */
  private int peerReadDepth;

  /**
   * @param pd owning domain
   * @param context owning context
   * @param qp the {@code ibv_qp*}
   * @param qpNum its number
   * @param maxInlineData the inline size {@code ibv_create_qp} granted (may exceed the request)
   * @param sendCq its send CQ, which it keeps in use until closed
   * @param recvCq its receive CQ, likewise
   * @param verifier its READ-back verify, judging on {@code sendCq}; null for none
   */
  IbvQueuePair(
      IbvProtectionDomain pd,
      IbvContext context,
      long qp,
      int qpNum,
      int maxInlineData,
      IbvCompletionQueue sendCq,
      IbvCompletionQueue recvCq,
      ReadBackVerifier verifier) {
    this.pd = pd;
    this.context = context;
    this.handle = new NativeHandle(qp);
    this.qpNum = qpNum;
    this.maxInlineData = maxInlineData;
    this.sendCq = sendCq;
    this.recvCq = recvCq;
    this.verifier = verifier;
    if (verifier != null) {
      sendCq.readBacks().add(verifier);
    }
    sendCq.attach();
    if (recvCq != sendCq) {
      recvCq.attach();
    }
  }

  @Override
  public int qpNum() {
    return qpNum;
  }

  /**
   * @return the largest payload this QP posts inline, as {@code ibv_create_qp} granted it
   */
  int maxInlineData() {
    return maxInlineData;
  }

  @Override
  public QpState state() {
    return state;
  }

  @Override
  public void toInit(int port, int accessFlags) {
    require(QpState.RESET, "INIT");
    if (port < 1 || port > context.portCount()) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "port "
              + port
              + " does not exist on '"
              + context.deviceName()
              + "' (ports 1.."
              + context.portCount()
              + ")");
    }
    AccessFlags.validate(accessFlags);
    int pkeyIndex = context.settings().pkeyIndex();
    int pkeys = context.portInfo(port).pkeyTableLength();
    if (pkeyIndex >= pkeys) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "ibverbs setting 'pkeyIndex' "
              + pkeyIndex
              + " is beyond the P_Key table of port "
              + port
              + " of '"
              + context.deviceName()
              + "' ("
              + pkeys
              + " entries)");
    }
    IbvNative.modifyQpToInit(handle.address(), port, pkeyIndex, accessFlags);
    this.port = port;
    state = QpState.INIT;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The address vector follows the local link layer: on RoCE a GRH with the port's source GID
   * index (and the configured traffic class) is mandatory and the peer must have sent a GID; on
   * InfiniBand the peer's LID must be non-zero. The path MTU may not exceed the port's active MTU.
   * The peer's READ depth, when known, bounds the READs this QP issues once in RTS.
   */
  @Override
  public void toRtr(QpPeer peer, int pathMtu) {
    require(QpState.INIT, "RTR");
    int mtu = IbvMtu.toCode(pathMtu);
    IbvPortInfo info = context.portInfo(port);
    IbvGidEntry source = context.sourceGid(port);
    boolean global;
    if (info.isRoce()) {
      if (peer.gid().equals(Gid.ZERO)) {
        throw new VerbsException(
            VerbsError.INVALID_ARGUMENT,
            "QP "
                + qpNum
                + ": RoCE port "
                + port
                + " of '"
                + context.deviceName()
                + "' needs a GRH, but the peer sent no GID");
      }
      global = true;
    } else {
      if (peer.lid() == 0) {
        throw new VerbsException(
            VerbsError.INVALID_ARGUMENT,
            "QP "
                + qpNum
                + ": InfiniBand port "
                + port
                + " of '"
                + context.deviceName()
                + "' needs the peer's LID, but the peer sent LID 0 (no subnet manager on its side?)");
      }
      global = !peer.gid().equals(Gid.ZERO);
    }
    if (pathMtu > info.activeMtu()) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "QP "
              + qpNum
              + ": path MTU "
              + pathMtu
              + " exceeds the active MTU "
              + info.activeMtu()
              + " of port "
              + port
              + " of '"
              + context.deviceName()
              + "'");
    }
    IbvSettings s = context.settings();
    IbvNative.modifyQpToRtr(
        handle.address(),
        port,
        mtu,
        peer.qpNum(),
        peer.lid(),
        global,
        peer.gid().hi(),
        peer.gid().lo(),
        source.index(),
        s.trafficClass(),
        s.serviceLevel(),
        peer.psn(),
        context.responderRdAtomic(),
        s.minRnrTimer());
    peerReadDepth = peer.readDepth();
    state = QpState.RTR;
  }

  /**
   * {@inheritDoc}
   *
   * <p>The READs in flight ({@code max_rd_atomic}) are the provider's depth, lowered to the READ
   * depth the peer answers: a requester above the responder's {@code max_dest_rd_atomic} is refused
   * by the responder's NIC.
   */
  @Override
  public void toRts(RtsAttributes attributes) {
    require(QpState.RTR, "RTS");
    int reads = context.initiatorRdAtomic();
    IbvNative.modifyQpToRts(
        handle.address(),
        attributes.sqPsn(),
        attributes.timeout(),
        attributes.retryCount(),
        attributes.rnrRetry(),
        peerReadDepth > 0 ? Math.min(reads, peerReadDepth) : reads);
    state = QpState.RTS;
  }

  @Override
  public void toError() {
    checkOpen();
    IbvNative.modifyQpState(handle.address(), QpState.ERR.code());
    state = QpState.ERR;
  }

  @Override
  public void toReset() {
    checkOpen();
    IbvNative.modifyQpState(handle.address(), QpState.RESET.code());
    state = QpState.RESET;
  }

  @Override
  public int postSend(WorkRequestBatch batch) {
    QpState s = state;
    return post(batch, s == QpState.RTS || s == QpState.ERR, true);
  }

  @Override
  public int postRecv(WorkRequestBatch batch) {
    return post(batch, state != QpState.RESET, false);
  }

  private int post(WorkRequestBatch batch, boolean allowed, boolean send) {
    long qp = handle.borrow();
    if (qp == 0) {
      batch.setBadIndex(0);
      return PostStatus.CLOSED;
    }
    try {
      if (!allowed) {
        batch.setBadIndex(0);
        return PostStatus.INVALID_STATE;
      }
      if (batch.size() == 0) {
        batch.setBadIndex(-1);
        return PostStatus.OK;
      }
      // An inline payload above the granted size is refused here, as a driver that checks would
      // (EINVAL): one that does not would read past the WQE. The work requests before it are
      // posted.
      int tooLong = send ? firstInlineAboveGranted(batch) : -1;
      int count = tooLong >= 0 ? tooLong : batch.size();
      long address = DirectMemory.address(batch.buffer());
      long r;
      if (count == 0) {
        r = 0;
      } else if (!send) {
        r = IbvNative.postRecv(qp, address, count);
      } else if (verifier != null && ReadBackVerifier.anyVerified(batch, count)) {
        r = verifier.post(qp, batch, count);
      } else {
        r = IbvNative.postSend(qp, address, count);
      }
      if (r == 0) {
        batch.setBadIndex(tooLong);
        return tooLong >= 0 ? PostStatus.INVALID_STATE : PostStatus.OK;
      }
      long v = -r;
      batch.setBadIndex((int) (v >>> IbvNative.POST_BAD_INDEX_SHIFT));
      return -(int) (v & ((1 << IbvNative.POST_BAD_INDEX_SHIFT) - 1));
    } finally {
      handle.release();
    }
  }

  private void require(QpState from, String to) {
    checkOpen();
    if (state != from) {
      throw new VerbsException(
          VerbsError.INVALID_STATE,
          "QP " + qpNum + " cannot go " + state + " -> " + to + " (only from " + from + ")");
    }
  }

  private void checkOpen() {
    if (handle.isRetired()) {
      throw new VerbsException(VerbsError.CLOSED, "QP " + qpNum + " is closed");
    }
  }

  /**
   * @return the index of the first work request flagged inline whose payload exceeds the granted
   *     inline size, or -1
   */
  private int firstInlineAboveGranted(WorkRequestBatch batch) {
    for (int i = 0; i < batch.size(); i++) {
      if ((batch.flags(i) & WrFlags.INLINE) != 0
          && Integer.toUnsignedLong(batch.length(i)) > maxInlineData) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public void close() {
    long qp = handle.retire();
    if (qp != 0) {
      IbvNative.destroyQp(qp);
      if (verifier != null) {
        sendCq.readBacks().remove(verifier);
        verifier.close();
      }
      sendCq.detach();
      if (recvCq != sendCq) {
        recvCq.detach();
      }
      pd.forget(this);
    }
  }
}
