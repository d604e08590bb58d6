package io.vte.mooncake;

/**
 * Mooncake's protocol-version-2 status frame: 8 bytes little-endian, magic "MCTV" in the high 32
 * bits and a code in the low 32 (0 accepted, 1 rejected). A target sends it after a WRITE's payload
 * is in place, and before the data of a READ.
 */
final class StatusFrame {

  /** Bytes of a frame on the wire. */
  static final int BYTES = 8;

  /** The magic in the high half. */
  static final long MAGIC = 0x4D435456L << 32;

  /** Request accepted (WRITE applied, READ data follows). */
  static final long OK = MAGIC;

  /** Request rejected (address or size not within a registered buffer). */
  static final long REJECTED = MAGIC | 1;

  private StatusFrame() {}

  /**
   * @return whether {@code frame} carries the magic
   */
  static boolean valid(long frame) {
    return (frame & 0xFFFFFFFF00000000L) == MAGIC;
  }

  /**
   * @return the code of a frame (low 32 bits)
   */
  static long code(long frame) {
    return frame & 0xFFFFFFFFL;
  }
}
