package io.vte.verbs.soft.impl.wire;

/** Why {@link FrameReader#read()} returned. */
public enum ReadOutcome {
  /** The channel has nothing more for now, or this wake-up's reads are spent: select again. */
  WAIT,
  /** {@link FrameReceiver#canReceive()} said no: read again once it can. */
  PAUSED,
  /** The peer closed the stream. */
  END_OF_STREAM,
  /**
   * A malformed frame: {@link FrameReader#error()} names it; the stream cannot be trusted any more.
   */
  PROTOCOL_ERROR,
  /** {@link FrameReader#close()} was called (by a receiver callback). */
  CLOSED
}
