package io.vte.mooncake;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.ByteBuffer;

/** Moves bytes between Vert.x buffers and registered (off-heap) memory without extra copies. */
final class OffHeap {

  private OffHeap() {}

  /**
   * Copies {@code length} bytes of {@code from}, starting at {@code fromOffset}, into {@code
   * memory} at {@code memoryOffset}. The memory view's own bounds stop any write beyond it.
   */
  static void copy(Buffer from, int fromOffset, ByteBuffer memory, int memoryOffset, int length) {
    ByteBuf bytes = ((BufferInternal) from).getByteBuf();
    memory.limit(memoryOffset + length).position(memoryOffset);
    bytes.getBytes(bytes.readerIndex() + fromOffset, memory);
  }

  /**
   * @return a buffer sharing {@code length} bytes of {@code memory} from {@code offset} (no copy)
   */
  static Buffer view(ByteBuffer memory, int offset, int length) {
    ByteBuffer slice = memory.duplicate();
    slice.limit(offset + length).position(offset);
    return BufferInternal.buffer(Unpooled.wrappedBuffer(slice.slice()));
  }
}
