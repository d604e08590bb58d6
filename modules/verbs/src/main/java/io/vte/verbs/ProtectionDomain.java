package io.vte.verbs;

import java.nio.ByteBuffer;

/**
 * A protection domain ({@code ibv_pd}): the scope of memory regions and the QPs that may use them.
 */
public interface ProtectionDomain extends AutoCloseable {

  /**
   * Registers the whole of a direct buffer (position and limit are ignored; the region is {@code
   * [address, address + capacity)}).
   *
   * @param buffer a direct buffer
   * @param accessFlags {@link AccessFlags}
   * @return the region with its lkey and rkey
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} for a heap buffer or bad flags
   */
  MemoryRegion registerMemory(ByteBuffer buffer, int accessFlags);

  /**
   * Registers raw native memory the caller owns and keeps alive until the region is closed.
   *
   * @param address start address, non-zero
   * @param length length in bytes, positive
   * @param accessFlags {@link AccessFlags}
   * @return the region with its lkey and rkey
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} naming a bad address, length or flag
   */
  MemoryRegion registerMemory(long address, long length, int accessFlags);

  /**
   * Creates an RC queue pair in {@link QpState#RESET}.
   *
   * @param attributes CQs and queue depths
   * @return the QP
   */
  QueuePair createQp(QpInitAttributes attributes);

  /** Deallocates the domain. Its regions and QPs are closed first. Idempotent. */
  @Override
  void close();
}
