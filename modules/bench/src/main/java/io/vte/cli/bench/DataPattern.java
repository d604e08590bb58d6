package io.vte.cli.bench;

import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A deterministic byte pattern that is a function of a seed and the offset in a region, so a peer
 * process can check any block it read without a reference copy: byte {@code o} is byte {@code o &
 * 7} (little-endian) of {@code mix(seed, o >>> 3)}.
 */
public final class DataPattern {

  /** The seed the target side fills its buffer with. */
  public static final long TARGET_SEED = 0x7A26E7L;

  /** The seed the initiator fills its source with. */
  public static final long SOURCE_SEED = 0x5EED5L;

  private DataPattern() {}

  /**
   * Fills native memory with the pattern.
   *
   * @param address region start
   * @param length bytes, at most {@code Integer.MAX_VALUE}
   * @param seed pattern seed
   */
  public static void fill(long address, long length, long seed) {
    ByteBuffer b =
        DirectMemory.wrap(address, Math.toIntExact(length)).order(ByteOrder.LITTLE_ENDIAN);
    long i = 0;
    for (; i + 8 <= length; i += 8) {
      b.putLong((int) i, mix(seed, i >>> 3));
    }
    for (; i < length; i++) {
      b.put((int) i, expected(seed, i));
    }
  }

  /**
   * Compares native memory with the pattern at an offset of the region.
   *
   * @param address where the block is
   * @param regionOffset the block's offset in the patterned region
   * @param length bytes to check
   * @param seed pattern seed
   * @return the offset within the block of the first differing byte, or -1
   */
  public static long firstMismatch(long address, long regionOffset, int length, long seed) {
    return firstMismatch(address, regionOffset, length, seed, seed);
  }

  /**
   * Compares native memory with either of two patterns, word by word: a target buffer that a WRITE
   * initiator wrote into holds the source pattern where it wrote and its own pattern elsewhere.
   *
   * @param address where the block is
   * @param regionOffset the block's offset in the patterned region
   * @param length bytes to check
   * @param seed one pattern seed
   * @param otherSeed the other accepted pattern seed
   * @return the offset within the block of the first byte matching neither, or -1
   */
  public static long firstMismatch(
      long address, long regionOffset, int length, long seed, long otherSeed) {
    ByteBuffer b = DirectMemory.wrap(address, length).order(ByteOrder.LITTLE_ENDIAN);
    int i = 0;
    if ((regionOffset & 7) == 0) {
      for (; i + 8 <= length; i += 8) {
        long v = b.getLong(i);
        long word = (regionOffset + i) >>> 3;
        if (v != mix(seed, word) && v != mix(otherSeed, word)) {
          break;
        }
      }
    }
    for (; i < length; i++) {
      byte v = b.get(i);
      if (v != expected(seed, regionOffset + i) && v != expected(otherSeed, regionOffset + i)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * @return the pattern byte at a region offset
   */
  static byte expected(long seed, long offset) {
    return (byte) (mix(seed, offset >>> 3) >>> ((offset & 7) * 8));
  }

  /** SplitMix64 finaliser of seed and word index. */
  static long mix(long seed, long index) {
    long z = seed + (index + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
