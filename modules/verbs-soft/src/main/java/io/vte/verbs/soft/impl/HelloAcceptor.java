package io.vte.verbs.soft.impl;

import io.vte.verbs.soft.impl.wire.FrameHeader;

/**
 * Handler of a freshly accepted connection: the first frame must be a HELLO naming an existing QP
 * in RTR/RTS whose peer is the sender; the connection is then handed to that QP's {@link
 * Responder}. Anything else closes the connection; a HELLO naming a QP that does not exist is
 * answered first with a {@link FrameHeader#NO_QP} NAK. Stateless: one per device.
 */
final class HelloAcceptor implements Connection.Handler {

  private final SoftDevice device;

  HelloAcceptor(SoftDevice device) {
    this.device = device;
  }

  @Override
  public boolean onHeader(Connection c, FrameHeader h) {
    if (h.opcode != FrameHeader.HELLO || h.raddr != FrameHeader.VERSION || h.length != 0) {
      return false;
    }
    SoftQp qp = device.qp(h.qpn);
    if (qp == null) {
      // no such QP: it will never accept, so say so (a QP not yet ready is refused quietly below)
      device.log().refusedHello(h.qpn, h.rkey);
      c.append(FrameHeader.NAK, FrameHeader.NO_QP, h.rkey, 0, 0, 0, 0, 0, 0, 0, null);
      c.pumpTx();
      c.close();
      return true;
    }
    if (!qp.responder.accepts(h.rkey)) {
      // no such QP, or not (yet) ready for this peer: refuse quietly, as an HCA drops such packets
      device.log().refusedHello(h.qpn, h.rkey);
      c.close();
      return true;
    }
    qp.responder.attach(c);
    return true;
  }

  @Override
  public void onPayloadDone(Connection c, FrameHeader h, boolean intact) {
    // HELLO has no payload
  }

  @Override
  public boolean canReceive() {
    return true;
  }

  @Override
  public void fillTx(Connection c) {
    // nothing to send before the HELLO
  }

  @Override
  public void onClosed(Connection c) {
    // nothing attached yet
  }
}
