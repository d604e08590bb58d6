package io.vte.it;

import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The verifying pattern of the suite: seeded xorshift bytes in native memory, and CRC32C checksums
 * of it.
 */
public final class Pattern {

  private Pattern() {}

  /**
   * Fills native memory with the sequence of a seed, 8 bytes at a time.
   *
   * @param address start of the memory
   * @param length bytes to fill, at most 2 GiB
   * @param seed selects the sequence
   */
  public static void fill(long address, int length, long seed) {
    long x = seed * 0x9E3779B97F4A7C15L + 1;
    ByteBuffer b = DirectMemory.wrap(address, length).order(ByteOrder.LITTLE_ENDIAN);
    while (b.remaining() >= 8) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
      b.putLong(x);
    }
    while (b.hasRemaining()) {
      b.put((byte) x);
      x >>>= 8;
    }
  }

  /**
   * @param address start of the memory
   * @param length bytes to checksum, at most 2 GiB
   * @return the CRC32C of the memory
   */
  public static long crc(long address, int length) {
    CRC32C crc = new CRC32C();
    crc.update(DirectMemory.wrap(address, length));
    return crc.getValue();
  }
}
