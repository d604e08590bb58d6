package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.soft.impl.SoftMr;

/** The consumer of the frames a {@link FrameReader} reads: what they mean. */
public interface FrameReceiver {

  /**
   * @return true when another frame can be taken now (else reading pauses)
   */
  boolean canReceive();

  /**
   * A header arrived. A frame with a payload must call {@link FrameReader#expectPayload(long, int,
   * SoftMr)} (address 0 discards it).
   *
   * @return false on a protocol error ({@link FrameError.Kind#REJECTED})
   */
  boolean onHeader(FrameHeader h);

  /**
   * The current frame's payload has been read.
   *
   * @param intact false when its target region (or the receiver's gate) closed while it streamed
   *     in: the rest was discarded
   */
  void onPayloadDone(FrameHeader h, boolean intact);

  /**
   * Tells, without acting on it, where the payload of a frame further on in a batch would land if
   * every frame before it succeeds.
   *
   * @param ahead how many frames after the current one {@code h} is (1 = the next)
   * @return the region that would take {@code h}'s payload at {@code h.raddr}, or null when that
   *     cannot be told now (the frame is then handled on its own)
   */
  SoftMr previewWrite(FrameHeader h, int ahead);

  /**
   * @return the gate every write of a payload into a region passes besides the region's own (a
   *     responder's QP: closed when it leaves RTR/RTS), or null for none
   */
  default AccessGate payloadGate() {
    return null;
  }
}
