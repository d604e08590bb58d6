package io.vte.verbs.soft.impl;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.soft.impl.wire.AccessGate;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import io.vte.verbs.soft.impl.wire.ResponseQueue;

/**
 * The receive half of a QP, run by the NIC thread on the QP's inbound connection: executes requests
 * in sequence order, checks every remote access (rkey, PD, bounds, permission) before touching
 * memory, consumes RECVs for SEND and WRITE_WITH_IMM, and queues ACK/NAK/READ_RESP responses.
 * Out-of-order frames (a gap after a drop or an RNR NAK) are discarded until the requester goes
 * back, and the first of a gap is answered with a sequence-error NAK naming the request expected;
 * duplicates are re-acked (READs re-executed), as an RC responder does. A QP out of RTR/RTS (ERR,
 * RESET, destroyed) executes nothing, not even what its peer sent before: requests still unread in
 * the socket are dropped, and a payload streaming in when the QP left RTS stops landing at once
 * ({@link SoftQp#inbound}), so a requester whose peer retired the QP knows no WRITE of it lands
 * later.
 */
final class Responder implements Connection.Handler {

  private static final int DISCARD = 0;
  private static final int DO_WRITE = 1;
  private static final int DO_WRITE_IMM = 2;
  private static final int DO_SEND = 3;

  private final SoftQp qp;
  private final ResponseQueue responses = new ResponseQueue();
  private final PayloadIntegrity integrity;

  /** The region the WRITE being read lands in. */
  private SoftMr writeTarget;

  private Connection conn;
  private int expected;
  private int seenRtr;
  private int seenReset;
  private int action;
  private long recvIndex;

  /** A sequence-error NAK went out for the gap before {@link #gapNakAt}: one NAK per gap. */
  private boolean gapNaked;

  private int gapNakAt;

  /**
   * This QP went to ERR refusing a remote access. Its NAK can be lost with the stream (cut when an
   * earlier READ response's source closed under it), so a requester that reconnects is still let in
   * and answered, up to the refused request, as before the error: it then gets REM_ACCESS_ERR, not
   * an ACK timeout.
   */
  private boolean refusedAccess;

  Responder(SoftQp qp) {
    this.qp = qp;
    this.integrity = new PayloadIntegrity(qp.device);
  }

  /** Takes over an inbound connection whose HELLO named this QP (NIC thread). */
  void attach(Connection c) {
    if (seenRtr != qp.rtrGeneration()) {
      seenRtr = qp.rtrGeneration();
      expected = qp.peer().psn();
      refusedAccess = false;
    }
    if (conn != null) {
      Connection old = conn;
      conn = null;
      old.close();
    }
    responses.clear();
    gapNaked = false;
    conn = c;
    c.setHandler(this);
  }

  /**
   * @return true when a HELLO from {@code srcQpn} may connect to this QP
   */
  boolean accepts(int srcQpn) {
    QpState s = qp.state();
    QpPeer peer = qp.peer();
    return !qp.isClosed()
        && (s == QpState.RTR || s == QpState.RTS || (s == QpState.ERR && refusedAccess))
        && peer != null
        && peer.qpNum() == srcQpn;
  }

  void service() {
    if (seenReset != qp.resetGeneration()) {
      seenReset = qp.resetGeneration();
      refusedAccess = false;
      long mark = qp.resetRecvMark();
      if (qp.rq.consumed() < mark) {
        qp.rq.consume(mark);
      }
      closeConnection();
    }
    if (qp.state() == QpState.ERR) {
      // the inbound connection stays until the requester closes it, so a queued NAK still reaches
      // it
      RecvQueue rq = qp.rq;
      long posted = rq.posted();
      for (long i = rq.consumed(); i < posted; i++) {
        completeRecv(WcStatus.WR_FLUSH_ERR, WcOpcode.RECV, 0, 0);
      }
    }
  }

  private void closeConnection() {
    Connection c = conn;
    conn = null;
    responses.clear();
    if (c != null) {
      c.close();
    }
  }

  void teardown() {
    closeConnection();
  }

  @Override
  public AccessGate payloadGate() {
    return qp.inbound;
  }

  /**
   * @return true while this QP executes its peer's requests (RTR or RTS, not destroyed)
   */
  private boolean executes() {
    QpState s = qp.state();
    return (s == QpState.RTR || s == QpState.RTS) && !qp.isClosed();
  }

  @Override
  public boolean canReceive() {
    return responses.hasRoom();
  }

  /**
   * A plain WRITE that {@link #onHeader} would execute once the {@code ahead} frames before it
   * succeeded.
   */
  @Override
  public SoftMr previewWrite(Connection c, FrameHeader h, int ahead) {
    if (c != conn
        || h.opcode != FrameHeader.WRITE
        || h.qpn != qp.qpNum()
        || h.seq - expected != ahead
        || !executes()) {
      return null;
    }
    long len = h.length & 0xffffffffL;
    return len > qp.device.maxMessageBytes()
        ? null
        : remoteAccess(AccessFlags.REMOTE_WRITE, h.rkey, h.raddr, len);
  }

  @Override
  public boolean onHeader(Connection c, FrameHeader h) {
    action = DISCARD;
    int op = h.opcode;
    boolean payload = FrameHeader.requestHasPayload(op);
    if (c != conn || h.qpn != qp.qpNum() || (!payload && op != FrameHeader.READ_REQ)) {
      return false;
    }
    long len = h.length & 0xffffffffL;
    qp.device.nic().servedPeer(len);
    if (len > qp.device.maxMessageBytes()) {
      return false; // absurd length: never trust it for framing, drop the connection
    }
    if (payload) {
      c.expectPayload(0, h.length, null); // discard unless the request is executed below
    }
    QpState s = qp.state();
    int diff = h.seq - expected;
    if (s == QpState.ERR && refusedAccess && diff <= 0) {
      if (diff == 0) {
        nak(h.seq, WcStatus.REM_ACCESS_ERR); // the refused request, resent: refused again
        return true;
      }
    } else if (!executes()) {
      return true; // a QP in ERR/RESET, or destroyed, silently drops requests
    }
    if (diff > 0) {
      // a gap: a request was lost. Name the expected one once, so the requester goes back now
      // rather than at
      // its ACK timeout; the rest of the gap is discarded until the resent requests arrive
      if (!gapNaked || gapNakAt != expected) {
        gapNaked = true;
        gapNakAt = expected;
        respond(FrameHeader.NAK, FrameHeader.SEQ_ERR, expected);
      }
      return true;
    }
    if (diff < 0) {
      if (op == FrameHeader.READ_REQ) {
        executeRead(h, false);
      } else {
        respond(FrameHeader.ACK, 0, h.seq);
      }
      return true;
    }
    switch (op) {
      case FrameHeader.WRITE:
      case FrameHeader.WRITE_IMM:
        SoftMr target = remoteAccess(AccessFlags.REMOTE_WRITE, h.rkey, h.raddr, len);
        if (target == null) {
          refuseAccess(h.seq);
          return true;
        }
        if (op == FrameHeader.WRITE_IMM && !recvAvailable()) {
          respond(FrameHeader.NAK, FrameHeader.RNR, h.seq);
          return true;
        }
        action = op == FrameHeader.WRITE ? DO_WRITE : DO_WRITE_IMM;
        writeTarget = target;
        c.expectPayload(h.raddr, h.length, target);
        return true;
      case FrameHeader.SEND:
      case FrameHeader.SEND_IMM:
        startSend(c, h, len);
        return true;
      default:
        executeRead(h, true);
        return true;
    }
  }

  private void startSend(Connection c, FrameHeader h, long len) {
    if (!recvAvailable()) {
      respond(FrameHeader.NAK, FrameHeader.RNR, h.seq);
      return;
    }
    RecvQueue rq = qp.rq;
    int r = (int) (rq.consumed() % rq.capacity);
    int recvLen = rq.length[r];
    if (recvLen < 0 || len > recvLen) {
      failRecv(h.seq, WcStatus.LOC_LEN_ERR, WcStatus.REM_INV_REQ_ERR);
      return;
    }
    SoftMr mr = null;
    if (len > 0) {
      mr = qp.device.mr(rq.lkey[r]);
      if (mr == null || !mr.permits(qp.pd, AccessFlags.LOCAL_WRITE, rq.address[r], len)) {
        failRecv(h.seq, WcStatus.LOC_PROT_ERR, WcStatus.REM_OP_ERR);
        return;
      }
    }
    action = DO_SEND;
    c.expectPayload(rq.address[r], h.length, mr);
  }

  private void executeRead(FrameHeader h, boolean advance) {
    long len = h.length & 0xffffffffL;
    SoftMr source = remoteAccess(AccessFlags.REMOTE_READ, h.rkey, h.raddr, len);
    if (source == null) {
      // a repeated READ meets a region closed since (its response was cut off): refused as a new
      // one would be
      refuseAccess(h.seq);
      return;
    }
    responses.add(
        FrameHeader.READ_RESP, h.status & FrameHeader.CRC, h.seq, h.raddr, h.length, source);
    if (advance) {
      expected++;
      qp.device.servedCounters().read(len);
    }
  }

  @Override
  public void onPayloadDone(Connection c, FrameHeader h, boolean intact) {
    int a = action;
    action = DISCARD;
    if (a == DISCARD || c != conn) {
      return;
    }
    if (!intact) { // the target region was deregistered while the payload streamed in
      if (!executes()) {
        return; // no: the QP left RTS (its gate closed), and executes nothing more
      }
      if (a == DO_SEND) {
        failRecv(h.seq, WcStatus.LOC_PROT_ERR, WcStatus.REM_OP_ERR);
      } else {
        refuseAccess(h.seq);
      }
      return;
    }
    if (a == DO_WRITE || a == DO_WRITE_IMM) {
      qp.device.servedCounters().write(h.length & 0xffffffffL);
      SoftMr target = writeTarget;
      writeTarget = null;
      if (a == DO_WRITE
          && !integrity.landed(
              target, qp.inbound, h.raddr, h.length, (h.status & FrameHeader.CRC) != 0, h.imm)) {
        expected++;
        respond(FrameHeader.NAK, FrameHeader.CORRUPT, h.seq);
        return;
      }
    }
    if (a == DO_WRITE_IMM || a == DO_SEND) {
      boolean imm = a == DO_WRITE_IMM || h.opcode == FrameHeader.SEND_IMM;
      completeRecv(
          WcStatus.SUCCESS,
          a == DO_WRITE_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV,
          h.length,
          imm ? h.imm : 0);
    }
    expected++;
    respond(FrameHeader.ACK, 0, h.seq);
  }

  /** Retires the oldest RECV, then reports it (so a poller that sees it can repost at once). */
  private void completeRecv(WcStatus status, int opcode, int byteLen, int imm) {
    RecvQueue rq = qp.rq;
    long i = rq.consumed();
    long wrId = rq.wrId[(int) (i % rq.capacity)];
    rq.consume(i + 1);
    qp.recvCq.add(wrId, status.code(), opcode, byteLen, qp.qpNum(), imm);
  }

  private boolean recvAvailable() {
    return qp.rq.consumed() < qp.rq.posted();
  }

  /**
   * @return the region the access may use, or null when the rkey, PD, bounds or permission say no
   */
  private SoftMr remoteAccess(int needed, int rkey, long raddr, long len) {
    if ((qp.accessFlags() & needed) != needed) {
      return null;
    }
    SoftMr mr = qp.device.mr(rkey);
    return mr != null && mr.permits(qp.pd, needed, raddr, len) ? mr : null;
  }

  /**
   * The RECV cannot take the SEND: it completes in error, the requester gets a NAK, this QP goes to
   * ERR.
   */
  private void failRecv(int seq, WcStatus recvStatus, WcStatus nakStatus) {
    completeRecv(recvStatus, WcOpcode.RECV, 0, 0);
    nak(seq, nakStatus);
    enterError(nakStatus == WcStatus.REM_INV_REQ_ERR ? AsyncEventType.QP_REQ_ERR : null);
  }

  /**
   * A remote access violation: NAK the requester, and this QP goes to ERR with QP_ACCESS_ERR, as an
   * RC HCA does.
   */
  private void refuseAccess(int seq) {
    refusedAccess = true;
    nak(seq, WcStatus.REM_ACCESS_ERR);
    enterError(AsyncEventType.QP_ACCESS_ERR);
  }

  /**
   * Moves this QP to ERR (the queued NAK still goes out on the inbound connection) and raises
   * {@code event}, if any, once: only the transition that actually entered ERR reports it.
   */
  private void enterError(AsyncEventType event) {
    if (qp.enterError()) {
      qp.device.nic().schedule(qp);
      if (event != null) {
        qp.device.raiseQpEvent(event, qp.qpNum());
      }
    }
  }

  private void nak(int seq, WcStatus status) {
    respond(FrameHeader.NAK, status.code(), seq);
  }

  /** Queues an ACK or a NAK; consecutive ACKs not yet sent go out as one. */
  private void respond(int op, int status, int seq) {
    if (op != FrameHeader.ACK || !responses.foldAck(seq)) {
      responses.add(op, status, seq, 0, 0, null);
    }
  }

  @Override
  public void fillTx(Connection c) {
    while (!responses.isEmpty()) {
      int op = responses.headOpcode();
      int len = op == FrameHeader.READ_RESP ? responses.headLength() : 0;
      int status = responses.headStatus();
      boolean checked = op == FrameHeader.READ_RESP && (status & FrameHeader.CRC) != 0;
      if (!c.append(
          op,
          status,
          qp.peer().qpNum(),
          responses.headSeq(),
          0,
          0,
          len,
          checked
              ? integrity.sourceCrc(
                  responses.headSeq() & 0xffffffffL,
                  responses.headRegion(),
                  responses.headAddress(),
                  len)
              : 0,
          responses.headAddress(),
          len,
          responses.headRegion())) {
        return;
      }
      responses.pop();
    }
    c.resumeReading();
  }

  @Override
  public void onClosed(Connection c) {
    if (c == conn) {
      conn = null;
      responses.clear();
    }
  }
}
