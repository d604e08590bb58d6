package io.vte.verbs.soft.impl;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.PortState;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WrOpcode;
import io.vte.verbs.soft.impl.requester.IdleWatch;
import io.vte.verbs.soft.impl.requester.RetryBudget;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The send half of a QP: transmits the send queue in order over the QP's outbound connection,
 * matches ACK/NAK/READ responses, retransmits (go-back-N) on timeout or RNR, and completes work
 * requests. Sequence number of send-queue index {@code i} is {@code seqBase + i}.
 *
 * <p>Up to three threads drive it, one at a time: see {@link RequesterAccess}.
 */
final class Requester implements Connection.Handler {

  private final SoftQp qp;
  private final SendQueue sq;

  /** Who drives this requester: its lock and the poster's and the CQ consumer's entries. */
  final RequesterAccess access;

  private boolean onPoster;

  private Connection conn;
  private boolean helloSent;
  private long sent;

  /**
   * One past the highest index ever transmitted; after a rewind, responses up to it are still
   * valid.
   */
  private long transmitted;

  private long acked;
  private int seqBase;
  private int seenRts = 0;
  private int seenReset = 0;
  private final RetryBudget retries = new RetryBudget();
  private boolean deadlineArmed;
  private long ackDeadline;
  private long resumeAt;
  private boolean holding;
  private int localError;
  private boolean discardingResponse;

  /** The READ response being read has no open local region to land in: its payload is discarded. */
  private boolean readTargetLost;

  /**
   * The head index last resent because its READ response went missing, or -1: one go-back per loss.
   */
  private long resentForGap = -1;

  private final IdleWatch idle = new IdleWatch();

  Requester(SoftQp qp) {
    this.qp = qp;
    this.sq = qp.sq;
    this.access = new RequesterAccess(this, qp);
  }

  @Override
  public void enter() {
    access.lock();
  }

  @Override
  public void exit() {
    access.unlock();
  }

  /**
   * @return the outbound connection, or null (under the lock)
   */
  Connection connection() {
    return conn;
  }

  /**
   * @return true when every posted WR is retired (two volatile reads, no lock)
   */
  boolean idle() {
    return sq.retired() == sq.posted();
  }

  /**
   * A poster holding the lock, after new WRs entered the send queue: sends them itself when the
   * connection is up and idle.
   *
   * @return true when the NIC must still see to the QP (it could not send, or not everything)
   */
  boolean sendAsPoster() {
    Connection c = conn;
    if (c == null
        || !c.acceptsPosterWrites()
        || qp.state() != QpState.RTS
        || holding
        || localError != 0
        || seenRts != qp.rtsGeneration()
        || seenReset != qp.resetGeneration()) {
      return true;
    }
    if (!deadlineArmed && acked < sq.posted()) {
      armDeadline(System.nanoTime());
    }
    onPoster = true;
    try {
      c.pumpTx();
    } finally {
      onPoster = false;
    }
    return localError != 0 || c.hasPendingTx() || c.isClosed() || sent < sq.posted();
  }

  // ---- driven by the NIC ----

  void service(long now) {
    access.lock();
    try {
      serviceLocked(now);
    } finally {
      access.unlock();
    }
  }

  private void serviceLocked(long now) {
    if (seenReset != qp.resetGeneration()) {
      seenReset = qp.resetGeneration();
      long mark = qp.resetSendMark();
      if (acked < mark) {
        acked = mark;
        sq.retire(acked);
      }
      sent = acked;
      transmitted = acked;
      localError = 0;
      deadlineArmed = false;
      resentForGap = -1;
      closeConnection();
    }
    QpState s = qp.state();
    if (s == QpState.ERR) {
      flush();
      return;
    }
    if (s != QpState.RTS) {
      return;
    }
    if (seenRts != qp.rtsGeneration()) {
      seenRts = qp.rtsGeneration();
      long base = qp.rtsSendIndex();
      seqBase = qp.rts().sqPsn() - (int) base;
      sent = Math.max(sent, base);
      transmitted = Math.max(transmitted, sent);
      retries.reset(qp.rts());
    }
    if (!deadlineArmed && acked < sq.posted()) {
      armDeadline(now);
    }
    failLocalIfDrained();
    if (qp.state() != QpState.RTS) {
      return;
    }
    transmit();
  }

  /**
   * Sends what waits, opening the connection first if needed. The connection opens lazily, when
   * there is work: a HELLO sent at RTS time would often reach a peer QP still in INIT and be
   * refused.
   */
  private void transmit() {
    if (conn == null) {
      if (acked < sq.posted()) {
        connect();
      }
    } else if (conn.isConnected()) {
      conn.pumpTx();
    }
  }

  /**
   * Timer check (NIC thread).
   *
   * @return the next time this requester wants a check, or {@code Long.MAX_VALUE}
   */
  long onTimer(long now) {
    access.lock();
    try {
      return onTimerLocked(now);
    } finally {
      access.unlock();
    }
  }

  private long onTimerLocked(long now) {
    if (qp.isClosed() || qp.state() != QpState.RTS) {
      return Long.MAX_VALUE;
    }
    long next = closeIfIdle(now);
    if (holding) {
      if (now - resumeAt >= 0) {
        holding = false;
        transmit();
      } else {
        next = resumeAt;
      }
    }
    if (conn != null) {
      next = Math.min(next, conn.onTimer(now)); // a frame held by an injected delay may go
    }
    if (conn != null && conn.isReadByPoller()) {
      if (access.pollerQuiet(now)) {
        access.takeReadingBackLocked(); // the consumer stopped polling (a peer's close too)
      } else if (deadlineArmed && now - ackDeadline >= 0) {
        conn.readWaiting(); // responses the consumer has not read yet are no reason to resend
      }
    }
    if (deadlineArmed && acked < sq.posted() && qp.rts().timeoutNanos() > 0) {
      if (now - ackDeadline >= 0) {
        if (retries.spendRetry()) {
          ackDeadline = now + qp.rts().timeoutNanos();
          rewind();
          transmit();
        } else {
          completeHead(WcStatus.RETRY_EXC_ERR.code());
          fail();
          return Long.MAX_VALUE;
        }
      }
      next = Math.min(next, ackDeadline);
    }
    return next;
  }

  /**
   * Closes the connection once it carried nothing for the device's idle time ({@link IdleWatch}).
   *
   * @return when to check again, or {@code Long.MAX_VALUE}
   */
  private long closeIfIdle(long now) {
    long posted = sq.posted();
    boolean busy = acked < posted || holding || (conn != null && conn.hasPendingTx());
    long next = idle.check(now, posted, busy, qp.device.idleConnectionNanos(), conn != null);
    if (next == IdleWatch.CLOSE_NOW) {
      closeConnection();
      return Long.MAX_VALUE;
    }
    return next;
  }

  private void connect() {
    if (qp.device.portState() != PortState.ACTIVE || qp.device.isDead()) {
      return;
    }
    QpPeer peer = qp.peer();
    try {
      conn =
          Connection.connect(
              qp.device.nic(),
              qp.device.localBindAddress(),
              new InetSocketAddress(peer.gid().toInetAddress(), peer.lid()),
              this);
      conn.pumpTx();
    } catch (IOException | RuntimeException e) {
      qp.device.log().connectionFailure(null, e);
      conn = null;
    }
  }

  private void closeConnection() {
    Connection c = conn;
    conn = null;
    if (c != null) {
      c.close();
    }
    helloSent = false;
  }

  // ---- Connection.Handler: transmit ----

  @Override
  public void fillTx(Connection c) {
    if (c != conn || qp.state() != QpState.RTS) {
      return;
    }
    QpPeer peer = qp.peer();
    if (!helloSent) {
      if (!c.append(
          FrameHeader.HELLO,
          0,
          peer.qpNum(),
          0,
          qp.qpNum(),
          FrameHeader.VERSION,
          0,
          0,
          0,
          0,
          null)) {
        return;
      }
      helloSent = true;
    }
    if (holding) {
      return;
    }
    SoftDevice device = qp.device;
    long posted = sq.posted();
    while (sent < posted && localError == 0) {
      int s = (int) (sent % sq.capacity);
      int op = sq.opcode[s];
      int len = sq.length[s];
      SoftMr mr = sq.hasLocalData(s) ? device.mr(sq.lkey[s]) : null; // it guards the payload
      int status = sq.checkLocal(s, mr, qp.pd, device.maxMessageBytes());
      if (status != 0) {
        localError = status;
        if (!onPoster) { // completions come from the NIC thread only
          failLocalIfDrained();
        }
        return;
      }
      boolean read = op == WrOpcode.RDMA_READ;
      if (!c.append(
          FrameHeader.requestOpcode(op),
          0,
          peer.qpNum(),
          seqOf(sent),
          sq.rkey[s],
          sq.remoteAddress[s],
          len,
          sq.imm[s],
          read ? 0 : sq.localAddress[s],
          read ? 0 : len,
          mr)) {
        return;
      }
      sent++;
      transmitted = Math.max(transmitted, sent);
    }
  }

  private int seqOf(long index) {
    return seqBase + (int) index;
  }

  /**
   * @return the send-queue index a sequence number names, relative to {@link #acked}
   */
  private long indexOf(int seq) {
    return acked + (seq - seqOf(acked));
  }

  // ---- Connection.Handler: receive ----

  @Override
  public boolean canReceive() {
    return true;
  }

  @Override
  public boolean onHeader(Connection c, FrameHeader h) {
    if (c != conn) {
      return false;
    }
    discardingResponse = false;
    readTargetLost = false;
    if (qp.state() != QpState.RTS) {
      if (h.opcode == FrameHeader.READ_RESP) {
        discardingResponse = true;
        c.expectPayload(0, h.length, null);
      }
      return true;
    }
    if (h.opcode == FrameHeader.NAK && h.status == FrameHeader.NO_QP) {
      // the peer QP is gone (destroyed): nothing sent here can ever be answered
      if (acked < sq.posted()) {
        completeHead(WcStatus.REM_ABORT_ERR.code());
      }
      fail();
      return true;
    }
    long idx = indexOf(h.seq);
    if (idx >= transmitted) {
      return false; // a response to something never sent
    }
    switch (h.opcode) {
      case FrameHeader.ACK:
        if (idx >= acked) {
          if (!completeUpTo(idx)) {
            return onMissingReadResponse(c, h);
          }
          completeHead(WcStatus.SUCCESS.code());
          onProgress();
        }
        return true;
      case FrameHeader.NAK:
        if (idx >= acked) {
          long before = acked;
          if (!completeUpTo(idx)) {
            return onMissingReadResponse(c, h);
          }
          if (h.status == FrameHeader.SEQ_ERR) {
            onSequenceNak(acked > before);
          } else {
            onNak(h.status);
          }
        }
        return true;
      case FrameHeader.READ_RESP:
        if (idx < acked) {
          discardingResponse = true;
          c.expectPayload(0, h.length, null);
          return true;
        }
        if (!completeUpTo(idx)) {
          return onMissingReadResponse(c, h);
        }
        int s = (int) (acked % sq.capacity);
        if (sq.opcode[s] != WrOpcode.RDMA_READ || sq.length[s] != h.length) {
          return false;
        }
        long target = sq.localAddress[s];
        SoftMr mr = qp.device.mr(sq.lkey[s]);
        if (h.length != 0
            && (mr == null || !mr.permits(qp.pd, AccessFlags.LOCAL_WRITE, target, h.length))) {
          readTargetLost = true; // deregistered since the READ went out
          c.expectPayload(0, h.length, null);
        } else {
          c.expectPayload(target, h.length, mr);
        }
        return true;
      default:
        return false;
    }
  }

  @Override
  public void onPayloadDone(Connection c, FrameHeader h, boolean intact) {
    if (discardingResponse || c != conn || qp.state() != QpState.RTS) {
      return;
    }
    if (intact && !readTargetLost) {
      completeHead(WcStatus.SUCCESS.code());
      onProgress();
    } else { // the local region closed under the READ, as an HCA reports a local protection error
      completeHead(WcStatus.LOC_PROT_ERR.code());
      fail();
    }
  }

  /**
   * A response to a later request arrived while the READ at the head still waits for its own: the
   * responder answers in order, so that READ's response was lost. As an RC requester does on a
   * sequence gap in its responses, go back to the READ and resend from there, once per loss (if the
   * resent READ's response is lost too, the ACK timeout goes back again). This response is
   * discarded, and so are the rest of the old stream's until the head's arrives: the responder
   * answers the resent requests again.
   */
  private boolean onMissingReadResponse(Connection c, FrameHeader h) {
    if (h.opcode == FrameHeader.READ_RESP) {
      discardingResponse = true;
      c.expectPayload(0, h.length, null);
    }
    if (resentForGap != acked) {
      resentForGap = acked;
      rewind();
      qp.device.nic().schedule(qp);
    }
    return true;
  }

  /**
   * Responses arrive in order: a response for {@code idx} implies success of the non-READs before
   * it.
   */
  private boolean completeUpTo(long idx) {
    while (acked < idx) {
      if (sq.opcode[(int) (acked % sq.capacity)] == WrOpcode.RDMA_READ) {
        return false;
      }
      completeHead(WcStatus.SUCCESS.code());
    }
    return true;
  }

  private void onNak(int status) {
    if (status == FrameHeader.RNR) {
      if (retries.spendRnr(qp.rts())) {
        rewind();
        holding = true;
        resumeAt = System.nanoTime() + RetryBudget.RNR_DELAY_NANOS;
        ackDeadline = resumeAt + qp.rts().timeoutNanos();
        qp.device.nic().wantTimerAt(resumeAt);
        return;
      }
      completeHead(WcStatus.RNR_RETRY_EXC_ERR.code());
    } else {
      WcStatus st = WcStatus.of(status);
      completeHead((st == WcStatus.SUCCESS ? WcStatus.REM_OP_ERR : st).code());
    }
    fail();
  }

  /**
   * The responder lost a request: it names the one it expects, now the head. Go back and resend
   * from it at once, as an RC requester does on a sequence-error NAK; the responder NAKs a gap
   * once, so this cannot loop.
   */
  private void onSequenceNak(boolean progressed) {
    if (progressed) {
      onProgress();
    }
    rewind();
    qp.device.nic().schedule(qp);
  }

  private void onProgress() {
    retries.reset(qp.rts());
    if (acked < sq.posted()) {
      armDeadline(System.nanoTime());
    } else {
      deadlineArmed = false;
    }
    failLocalIfDrained();
  }

  private void armDeadline(long now) {
    deadlineArmed = true;
    ackDeadline = now + qp.rts().timeoutNanos();
    if (qp.rts().timeoutNanos() > 0) {
      qp.device.nic().wantTimerAt(ackDeadline);
    }
  }

  private void rewind() {
    sent = acked;
    localError =
        0; // it names a WR at or after acked: fillTx checks that WR again when it resends up to it
  }

  @Override
  public void onClosed(Connection c) {
    access.lock();
    try {
      if (c == conn) {
        conn = null;
        helloSent = false;
        rewind(); // frames in the lost stream are resent on the next connection
        if (acked < sq.posted() && qp.state() == QpState.RTS && !holding) {
          // work is waiting (e.g. the peer refused the HELLO, not yet RTR): try again soon, backing
          // off; a peer never ready still hits the ACK deadline
          holding = true;
          resumeAt = System.nanoTime() + retries.nextReconnectDelay(qp.rts());
          qp.device.nic().wantTimerAt(resumeAt);
        }
      }
    } finally {
      access.unlock();
    }
  }

  // ---- completions and errors ----

  private void failLocalIfDrained() {
    if (localError != 0 && acked == sent) {
      int status = localError;
      localError = 0;
      completeHead(status);
      fail();
    }
  }

  private void completeHead(int status) {
    int s = (int) (acked % sq.capacity);
    long wrId = sq.wrId[s];
    int op = sq.opcode[s];
    int len = sq.length[s];
    boolean report = status != 0 || sq.isSignaled(s);
    acked++;
    if (sent < acked) {
      sent = acked;
    }
    if (transmitted < acked) {
      transmitted = acked;
    }
    sq.retire(acked); // before the completion is visible, so a poller that sees it may post again
    if (report) {
      qp.sendCq.add(wrId, status, WcOpcode.forWrOpcode(op), status == 0 ? len : 0, qp.qpNum(), 0);
    }
  }

  /** Moves the QP to ERR and flushes everything outstanding (NIC thread). */
  void fail() {
    qp.enterError();
    flush();
    qp.device.nic().schedule(qp); // the responder half flushes its receives on the NIC
  }

  private void flush() {
    closeConnection();
    long posted = sq.posted();
    while (acked < posted) {
      completeHead(WcStatus.WR_FLUSH_ERR.code());
    }
    localError = 0;
    deadlineArmed = false;
    holding = false;
  }

  void teardown() {
    access.lock();
    try {
      closeConnection();
    } finally {
      access.unlock();
    }
  }
}
