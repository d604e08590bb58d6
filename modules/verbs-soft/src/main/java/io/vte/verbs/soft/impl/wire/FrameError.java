package io.vte.verbs.soft.impl.wire;

/**
 * A malformed frame, which ends its connection: the stream can no longer be trusted for framing.
 *
 * @param kind what was wrong
 * @param message what was wrong, naming the bad value where there is one (the device log's words)
 */
public record FrameError(Kind kind, String message) {

  /** The ways a frame can be malformed. */
  public enum Kind {
    /** A frame on the stream does not start with {@link FrameHeader#MAGIC}. */
    BAD_MAGIC,
    /** A frame inside a batch block is cut short, has a bad magic, or is a BATCH itself. */
    BAD_FRAME_IN_BATCH,
    /** A BATCH announces a block shorter than a header or longer than a sender's staging. */
    BAD_BATCH_LENGTH,
    /** A small payload runs past the end of its batch block. */
    PAYLOAD_BEYOND_BATCH,
    /** The receiver refused the header (unknown opcode, QP or sequence, absurd length). */
    REJECTED
  }

  public static FrameError badMagic() {
    return new FrameError(Kind.BAD_MAGIC, "bad magic");
  }

  public static FrameError badFrameInBatch() {
    return new FrameError(Kind.BAD_FRAME_IN_BATCH, "bad frame in batch");
  }

  public static FrameError badBatchLength(int length) {
    return new FrameError(Kind.BAD_BATCH_LENGTH, "batch of " + (length & 0xffffffffL) + " bytes");
  }

  public static FrameError payloadBeyondBatch() {
    return new FrameError(Kind.PAYLOAD_BEYOND_BATCH, "payload beyond its batch");
  }

  public static FrameError rejected(FrameHeader h) {
    return new FrameError(Kind.REJECTED, "rejected " + h.describe());
  }
}
