package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.soft.impl.SoftMr;

/**
 * Where the halves of a QP put the frames they send: a connection's {@link FrameWriter}, or a
 * decorator of it.
 */
public interface FrameSink {

  /**
   * Appends one frame.
   *
   * @param payloadAddress source of the payload (ignored when {@code payloadLength} is 0)
   * @param payloadLength payload bytes that follow the header
   * @param region the registered region that holds the payload, or null
   * @return true when the frame is taken; false when there is no room now (the sender is asked
   *     again later), or when {@code region} is closed (the connection then aborts)
   */
  boolean append(
      int opcode,
      int status,
      int qpn,
      int seq,
      int rkey,
      long raddr,
      int length,
      int imm,
      long payloadAddress,
      int payloadLength,
      SoftMr region);
}
