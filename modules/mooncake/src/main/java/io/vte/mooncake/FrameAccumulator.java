package io.vte.mooncake;

import io.vertx.core.buffer.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Gathers a fixed-size little-endian frame (a data header, a status frame) that may arrive split
 * over several reads, in one reused array: nothing is allocated per frame.
 */
final class FrameAccumulator {

  private final byte[] bytes;
  private final ByteBuffer view;
  private int filled;

  FrameAccumulator(int size) {
    bytes = new byte[size];
    view = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  /**
   * Takes what the frame still lacks from {@code chunk} at {@code offset}.
   *
   * @return bytes taken
   */
  int take(Buffer chunk, int offset) {
    int n = Math.min(bytes.length - filled, chunk.length() - offset);
    chunk.getBytes(offset, offset + n, bytes, filled);
    filled += n;
    return n;
  }

  /**
   * @return whether the frame is complete
   */
  boolean complete() {
    return filled == bytes.length;
  }

  /**
   * @return bytes gathered of the frame so far
   */
  int filled() {
    return filled;
  }

  /**
   * @return the complete frame's bytes (little-endian); the next {@link #take} starts a new one
   */
  ByteBuffer drain() {
    filled = 0;
    return view;
  }
}
