package io.vte.api;

import java.util.List;

/**
 * One registered buffer of a peer segment, obtained from {@link SegmentHandle#buffers()}: {@code
 * segment.buffers().get(0).address()} is where a request into that buffer starts.
 *
 * @param location the peer's location tag
 * @param address native address in the peer process
 * @param length length in bytes
 * @param rkeys remote keys, index-aligned with {@link SegmentHandle#devices()}
 * @param sharedMemoryPath the shared-memory file holding it when the peer allocated it ({@link
 *     TransferEngine#allocate}) and describes it to this engine, else empty
 */
public record SegmentBuffer(
    String location, long address, long length, List<Integer> rkeys, String sharedMemoryPath) {

  /**
   * A buffer that is not shared memory.
   *
   * @param location the peer's location tag
   * @param address native address in the peer process
   * @param length length in bytes
   * @param rkeys remote keys, index-aligned with {@link SegmentHandle#devices()}
   */
  public SegmentBuffer(String location, long address, long length, List<Integer> rkeys) {
    this(location, address, length, rkeys, "");
  }

  /**
   * @return true when same-host peers may map it (the same-host rail carries it when it applies)
   */
  public boolean isSharedMemory() {
    return !sharedMemoryPath.isEmpty();
  }

  /**
   * @param start first address
   * @param bytes length
   * @return true when {@code [start, start + bytes)} lies inside this buffer
   */
  public boolean contains(long start, long bytes) {
    return start >= address && bytes >= 0 && start - address <= length - bytes;
  }
}
