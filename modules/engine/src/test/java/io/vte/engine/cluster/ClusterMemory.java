package io.vte.engine.cluster;

import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/** Seeded fills and checksums of native memory, shared by the cluster test processes. */
final class ClusterMemory {

  private ClusterMemory() {}

  /**
   * Fills {@code length} bytes at {@code address} with the byte sequence of {@code seed}; a shorter
   * fill is a prefix of a longer one.
   */
  static void fill(long address, int length, long seed) {
    ByteBuffer b = DirectMemory.wrap(address, length);
    SplittableRandom random = new SplittableRandom(seed);
    while (b.remaining() >= 8) {
      b.putLong(random.nextLong());
    }
    long last = random.nextLong();
    for (int shift = 56; b.hasRemaining(); shift -= 8) {
      b.put((byte) (last >>> shift));
    }
  }

  /**
   * @return the CRC32C of {@code length} bytes at {@code address}
   */
  static long crc(long address, int length) {
    CRC32C crc = new CRC32C();
    crc.update(DirectMemory.wrap(address, length));
    return crc.getValue();
  }

  /**
   * @return the CRC32C of the bytes at {@code [offset, offset + length)} of the sequence of {@code
   *     seed}
   */
  static long expectedCrc(long seed, int offset, int length) {
    long address = DirectMemory.allocate(offset + length);
    try {
      fill(address, offset + length, seed);
      return crc(address + offset, length);
    } finally {
      DirectMemory.free(address);
    }
  }
}
