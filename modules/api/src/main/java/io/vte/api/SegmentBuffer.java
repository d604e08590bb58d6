package io.vte.api;

import java.util.List;

/**
 * One registered buffer of a peer segment.
 *
 * @param location the peer's location tag
 * @param address native address in the peer process
 * @param length length in bytes
 * @param rkeys remote keys, index-aligned with {@link SegmentHandle#devices()}
 */
public record SegmentBuffer(String location, long address, long length, List<Integer> rkeys) {

  /**
   * @param start first address
   * @param bytes length
   * @return true when {@code [start, start + bytes)} lies inside this buffer
   */
  public boolean contains(long start, long bytes) {
    return start >= address && bytes >= 0 && start - address <= length - bytes;
  }
}
