package io.vte.verbs.soft.impl;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.QpState;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WrOpcode;
import io.vte.verbs.soft.impl.requester.SendWindow;
import io.vte.verbs.soft.impl.wire.FrameHeader;

/**
 * The receive side of a {@link Requester}: matches the responder's ACKs, NAKs and READ responses to
 * the send window, lands READ payloads in their local regions, completes work requests in order and
 * goes back on a lost request or response. Its requester calls it for frames of its current
 * connection, under its lock.
 */
final class ResponseMatcher {

  private final Requester requester;
  private final SoftQp qp;
  private final SendQueue sq;
  private final SendWindow window;

  private boolean discardingResponse;

  /** The READ response being read has no open local region to land in: its payload is discarded. */
  private boolean readTargetLost;

  /**
   * The head index last resent because its READ response went missing, or -1: one go-back per loss.
   */
  private long resentForGap = -1;

  ResponseMatcher(Requester requester, SoftQp qp, SendWindow window) {
    this.requester = requester;
    this.qp = qp;
    this.sq = qp.sq;
    this.window = window;
  }

  /** The QP was reset: no loss is remembered. */
  void reset() {
    resentForGap = -1;
  }

  /**
   * A response header arrived on the requester's current connection.
   *
   * @return false when it answers nothing this requester sent (a protocol error)
   */
  boolean onHeader(Connection c, FrameHeader h) {
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
      if (window.acked() < sq.posted()) {
        requester.completeHead(WcStatus.REM_ABORT_ERR.code());
      }
      requester.fail();
      return true;
    }
    long idx = window.indexOf(h.seq);
    if (!window.wasTransmitted(idx)) {
      return false; // a response to something never sent
    }
    switch (h.opcode) {
      case FrameHeader.ACK:
        if (idx >= window.acked()) {
          if (!completeUpTo(idx)) {
            return onMissingReadResponse(c, h);
          }
          requester.completeHead(WcStatus.SUCCESS.code());
          requester.onProgress();
        }
        return true;
      case FrameHeader.NAK:
        if (idx >= window.acked()) {
          long before = window.acked();
          if (!completeUpTo(idx)) {
            return onMissingReadResponse(c, h);
          }
          if (h.status == FrameHeader.SEQ_ERR) {
            onSequenceNak(window.acked() > before);
          } else {
            requester.onNak(h.status);
          }
        }
        return true;
      case FrameHeader.READ_RESP:
        return onReadResponse(c, h, idx);
      default:
        return false;
    }
  }

  private boolean onReadResponse(Connection c, FrameHeader h, long idx) {
    if (idx < window.acked()) {
      discardingResponse = true;
      c.expectPayload(0, h.length, null);
      return true;
    }
    if (!completeUpTo(idx)) {
      return onMissingReadResponse(c, h);
    }
    int s = (int) (window.acked() % sq.capacity);
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
  }

  /**
   * A READ response's payload was read (or discarded) from the requester's current connection.
   *
   * @param intact whether it landed whole in its region
   */
  void onPayloadDone(boolean intact) {
    if (discardingResponse || qp.state() != QpState.RTS) {
      return;
    }
    if (intact && !readTargetLost) {
      requester.completeHead(WcStatus.SUCCESS.code());
      requester.onProgress();
    } else { // the local region closed under the READ, as an HCA reports a local protection error
      requester.completeHead(WcStatus.LOC_PROT_ERR.code());
      requester.fail();
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
    if (resentForGap != window.acked()) {
      resentForGap = window.acked();
      requester.rewind();
      qp.device.nic().schedule(qp);
    }
    return true;
  }

  /**
   * Responses arrive in order: a response for {@code idx} implies success of the non-READs before
   * it.
   */
  private boolean completeUpTo(long idx) {
    while (window.acked() < idx) {
      if (sq.opcode[(int) (window.acked() % sq.capacity)] == WrOpcode.RDMA_READ) {
        return false;
      }
      requester.completeHead(WcStatus.SUCCESS.code());
    }
    return true;
  }

  /**
   * The responder lost a request: it names the one it expects, now the head. Go back and resend
   * from it at once, as an RC requester does on a sequence-error NAK; the responder NAKs a gap
   * once, so this cannot loop.
   */
  private void onSequenceNak(boolean progressed) {
    if (progressed) {
      requester.onProgress();
    }
    requester.rewind();
    qp.device.nic().schedule(qp);
  }
}
