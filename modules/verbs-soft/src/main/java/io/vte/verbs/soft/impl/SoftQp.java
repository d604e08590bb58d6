package io.vte.verbs.soft.impl;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.soft.impl.wire.AccessGate;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An RC queue pair: the state machine and the post side (any thread, under this object's lock, no
 * I/O). The NIC thread runs its two halves, {@link Requester} (send queue) and {@link Responder}
 * (inbound requests), and learns about control-plane changes through generation counters; the send
 * CQ's consumer reads the requester's responses while it polls (see {@link SoftCq}).
 */
final class SoftQp implements QueuePair {

  final SoftDevice device;
  final SoftPd pd;
  final SoftCq sendCq;
  final SoftCq recvCq;
  final SendQueue sq;
  final RecvQueue rq;
  final Requester requester;
  final Responder responder;

  /**
   * The responder's writes into memory: open only in RTR and RTS, closed (waiting for a write in
   * progress) by every move out of them, so that once {@link #toError()}, {@link #toReset()} or
   * {@link #close()} returns, nothing the peer sent on this QP lands any more, even a request still
   * unread in the socket or half read: a responder in ERR executes nothing, as an RC HCA's.
   */
  final AccessGate inbound = new AccessGate(false);

  /** Set while the QP waits in the NIC's inbox, so posting enqueues it at most once. */
  final AtomicBoolean scheduled = new AtomicBoolean();

  private final int qpn;
  private volatile QpState state = QpState.RESET;
  private volatile boolean closed;
  private volatile int accessFlags;
  private volatile QpPeer peer;
  private volatile RtsAttributes rts;
  private volatile int pathMtu;

  /** Bumped by toRtr; the responder resets its expected sequence when it sees a new value. */
  private volatile int rtrGeneration;

  /** Bumped by toRts; the requester re-bases its sequence numbers when it sees a new value. */
  private volatile int rtsGeneration;

  private volatile long rtsSendIndex;

  /** Bumped by toReset; the NIC discards queued work up to the marks below. */
  private volatile int resetGeneration;

  private volatile long resetSendMark;
  private volatile long resetRecvMark;

  SoftQp(SoftDevice device, SoftPd pd, QpInitAttributes attributes, int qpn) {
    this.device = device;
    this.pd = pd;
    this.sendCq = (SoftCq) attributes.sendCq();
    this.recvCq = (SoftCq) attributes.recvCq();
    this.qpn = qpn;
    this.sq = new SendQueue(attributes.maxSendWr(), attributes.maxInlineData());
    this.rq = new RecvQueue(attributes.maxRecvWr());
    this.requester = new Requester(this);
    this.responder = new Responder(this);
    sendCq.addSender(requester.access);
  }

  @Override
  public int qpNum() {
    return qpn;
  }

  @Override
  public QpState state() {
    return state;
  }

  boolean isClosed() {
    return closed;
  }

  int accessFlags() {
    return accessFlags;
  }

  QpPeer peer() {
    return peer;
  }

  RtsAttributes rts() {
    return rts;
  }

  int rtrGeneration() {
    return rtrGeneration;
  }

  int rtsGeneration() {
    return rtsGeneration;
  }

  long rtsSendIndex() {
    return rtsSendIndex;
  }

  int resetGeneration() {
    return resetGeneration;
  }

  long resetSendMark() {
    return resetSendMark;
  }

  long resetRecvMark() {
    return resetRecvMark;
  }

  @Override
  public synchronized void toInit(int port, int accessFlags) {
    requireOpen();
    if (state != QpState.RESET && state != QpState.INIT) {
      throw illegal("INIT");
    }
    if (port < 1 || port > device.portCount()) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "port " + port + " does not exist on " + device.deviceName());
    }
    AccessFlags.validate(accessFlags);
    this.accessFlags = accessFlags;
    state = QpState.INIT;
  }

  @Override
  public synchronized void toRtr(QpPeer peer, int pathMtu) {
    requireOpen();
    if (state != QpState.INIT) {
      throw illegal("RTR");
    }
    if (peer == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "peer is null");
    }
    if (pathMtu < 256 || pathMtu > 4096 || Integer.bitCount(pathMtu) != 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "path MTU must be 256..4096 and a power of two, got " + pathMtu);
    }
    if (!peer.gid().isIpv4Mapped() && peer.gid().toInetAddress().isAnyLocalAddress()) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "peer GID " + peer.gid() + " is not an address");
    }
    this.peer = peer;
    this.pathMtu = pathMtu;
    rtrGeneration++;
    // the gate opens before RTR is published: a HELLO accepted at RTR must find its payloads'
    // gate open, or the first WRITE lands "lost" and is refused as an access error
    inbound.open();
    state = QpState.RTR;
  }

  @Override
  public synchronized void toRts(RtsAttributes attributes) {
    requireOpen();
    if (state != QpState.RTR) {
      throw illegal("RTS");
    }
    if (attributes == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "RTS attributes are null");
    }
    this.rts = attributes;
    rtsSendIndex = sq.posted();
    rtsGeneration++;
    state = QpState.RTS;
    device.nic().schedule(this);
  }

  @Override
  public void toError() {
    synchronized (this) {
      requireOpen();
      state = QpState.ERR;
    }
    inbound.close();
    device.nic().schedule(this);
  }

  /**
   * An error moved the QP to ERR (NIC thread, or the send CQ's consumer reading responses).
   *
   * @return false when it already was in ERR or RESET
   */
  boolean enterError() {
    synchronized (this) {
      if (state == QpState.ERR || state == QpState.RESET || closed) {
        return false;
      }
      state = QpState.ERR;
    }
    inbound.close();
    return true;
  }

  @Override
  public void toReset() {
    synchronized (this) {
      requireOpen();
      resetSendMark = sq.posted();
      resetRecvMark = rq.posted();
      resetGeneration++;
      peer = null;
      rts = null;
      state = QpState.RESET;
    }
    inbound.close();
    device.nic().schedule(this);
  }

  @Override
  public int postSend(WorkRequestBatch batch) {
    int rc;
    synchronized (this) {
      if (closed) {
        batch.setBadIndex(0);
        return PostStatus.CLOSED;
      }
      QpState s = state;
      if (s != QpState.RTS && s != QpState.ERR) {
        batch.setBadIndex(batch.size() > 0 ? 0 : -1);
        return PostStatus.INVALID_STATE;
      }
      rc = sq.add(batch);
    }
    if (batch.badIndex() != 0) {
      requester.access.post();
    }
    return rc;
  }

  @Override
  public int postRecv(WorkRequestBatch batch) {
    int rc;
    QpState s;
    synchronized (this) {
      if (closed) {
        batch.setBadIndex(0);
        return PostStatus.CLOSED;
      }
      s = state;
      if (s == QpState.RESET) {
        batch.setBadIndex(batch.size() > 0 ? 0 : -1);
        return PostStatus.INVALID_STATE;
      }
      rc = rq.add(batch);
    }
    if (s == QpState.ERR) {
      device.nic().schedule(this);
    }
    return rc;
  }

  /** NIC thread: brings both halves up to date with the control plane and lets them work. */
  void service(long now) {
    if (closed) {
      requester.teardown();
      responder.teardown();
      sq.free();
      return;
    }
    requester.service(now);
    responder.service();
  }

  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    inbound.close();
    sendCq.removeSender(requester.access);
    pd.forget(this);
    device.nic().schedule(this);
  }

  private void requireOpen() {
    if (closed) {
      throw new VerbsException(VerbsError.CLOSED, "QP " + qpn + " is closed");
    }
  }

  private VerbsException illegal(String target) {
    return new VerbsException(
        VerbsError.INVALID_STATE, "QP " + qpn + ": illegal transition " + state + " -> " + target);
  }

  @Override
  public String toString() {
    return "QP[" + device.deviceName() + "#" + qpn + " " + state + "]";
  }
}
