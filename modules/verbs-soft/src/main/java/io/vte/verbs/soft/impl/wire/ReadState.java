package io.vte.verbs.soft.impl.wire;

/** What a {@link FrameReader} is in the middle of. */
public enum ReadState {
  /** Waiting for the next header, from the stream or from a batch's block. */
  HEADER,
  /** A payload streaming in: copied from the staging buffer, or discarded. */
  PAYLOAD,
  /** A small payload inside a batch's block. */
  INLINE_PAYLOAD,
  /** A large payload read straight from the channel into its target (with chained later ones). */
  DIRECT,
  /** A batch's block of headers and small payloads streaming into the block buffer. */
  BLOCK
}
