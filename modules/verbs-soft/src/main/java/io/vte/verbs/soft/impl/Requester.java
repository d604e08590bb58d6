package io.vte.verbs.soft.impl;

import io.vte.verbs.PortState;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WrOpcode;
import io.vte.verbs.soft.impl.requester.IdleWatch;
import io.vte.verbs.soft.impl.requester.RetryBudget;
import io.vte.verbs.soft.impl.requester.SendWindow;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * The send half of a QP: transmits the send queue in order over the QP's outbound connection,
 * retransmits (go-back-N) on timeout or RNR, and completes work requests. Its {@link SendWindow}
 * tracks the indices and their sequence numbers; its {@link ResponseMatcher} matches the responses.
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
  private final SendWindow window = new SendWindow();
  private final ResponseMatcher responses;
  private int seenRts = 0;
  private int seenReset = 0;
  private final RetryBudget retries = new RetryBudget();
  private boolean deadlineArmed;
  private long ackDeadline;
  private long resumeAt;
  private boolean holding;
  private int localError;
  private final IdleWatch idle = new IdleWatch();

  Requester(SoftQp qp) {
    this.qp = qp;
    this.sq = qp.sq;
    this.access = new RequesterAccess(this, qp);
    this.responses = new ResponseMatcher(this, qp, window);
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
    if (!deadlineArmed && window.acked() < sq.posted()) {
      armDeadline(System.nanoTime());
    }
    onPoster = true;
    try {
      c.pumpTx();
    } finally {
      onPoster = false;
    }
    return localError != 0 || c.hasPendingTx() || c.isClosed() || window.sent() < sq.posted();
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
      if (window.restartAt(qp.resetSendMark())) {
        sq.retire(window.acked());
      }
      localError = 0;
      deadlineArmed = false;
      responses.reset();
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
      window.startAt(qp.rtsSendIndex(), qp.rts().sqPsn());
      retries.reset(qp.rts());
    }
    if (!deadlineArmed && window.acked() < sq.posted()) {
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
      if (window.acked() < sq.posted()) {
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
    if (deadlineArmed && window.acked() < sq.posted() && qp.rts().timeoutNanos() > 0) {
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
    boolean busy = window.acked() < posted || holding || (conn != null && conn.hasPendingTx());
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
    while (window.sent() < posted && localError == 0) {
      int s = (int) (window.sent() % sq.capacity);
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
          window.seqOf(window.sent()),
          sq.rkey[s],
          sq.remoteAddress[s],
          len,
          sq.imm[s],
          read ? 0 : sq.localAddress[s],
          read ? 0 : len,
          mr)) {
        return;
      }
      window.sentOne();
    }
  }

  // ---- Connection.Handler: receive ----

  @Override
  public boolean canReceive() {
    return true;
  }

  @Override
  public boolean onHeader(Connection c, FrameHeader h) {
    return c == conn && responses.onHeader(c, h);
  }

  @Override
  public void onPayloadDone(Connection c, FrameHeader h, boolean intact) {
    if (c == conn) {
      responses.onPayloadDone(intact);
    }
  }

  /** A NAK other than a sequence error answered the head (RNR: hold and resend; else: fail). */
  void onNak(int status) {
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

  /** The responder answered: the retry budget starts over and the deadline moves. */
  void onProgress() {
    retries.reset(qp.rts());
    if (window.acked() < sq.posted()) {
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

  /** Goes back to the head: the stream resends from the oldest unanswered request. */
  void rewind() {
    window.rewind();
    localError = 0; // it names a WR at or after the head: fillTx checks it again when it resends
  }

  @Override
  public void onClosed(Connection c) {
    access.lock();
    try {
      if (c == conn) {
        conn = null;
        helloSent = false;
        rewind(); // frames in the lost stream are resent on the next connection
        if (window.acked() < sq.posted() && qp.state() == QpState.RTS && !holding) {
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
    if (localError != 0 && window.drained()) {
      int status = localError;
      localError = 0;
      completeHead(status);
      fail();
    }
  }

  /** Completes the head request with a status (a CQ entry when signaled or failed). */
  void completeHead(int status) {
    int s = (int) (window.acked() % sq.capacity);
    long wrId = sq.wrId[s];
    int op = sq.opcode[s];
    int len = sq.length[s];
    boolean report = status != 0 || sq.isSignaled(s);
    window.ackHead();
    // retired before the completion is visible, so a poller that sees it may post again
    sq.retire(window.acked());
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
    while (window.acked() < posted) {
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
