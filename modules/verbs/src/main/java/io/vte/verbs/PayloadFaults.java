package io.vte.verbs;

import java.util.SplittableRandom;

/**
 * A seeded choice of payloads to damage, and of the bit to flip in each: the wire and post-copy
 * corruptions of fault injectors ({@link VerbsFaultInjector#corruptFrames}, {@link
 * VerbsFaultInjector#corruptLanded}). Immutable settings; the generator is guarded, so threads that
 * land payloads at once (a NIC, a polling CQ consumer, copiers) may share it.
 */
public final class PayloadFaults {

  private final double fraction;
  private final SplittableRandom random;

  /**
   * @param fraction of the payloads to damage, 0..1
   * @param seed generator seed: the same seed picks the same payloads and bits
   */
  public PayloadFaults(double fraction, long seed) {
    this.fraction = fraction;
    this.random = new SplittableRandom(seed);
  }

  /**
   * @param payloadLength bytes of the payload
   * @return the bit of it to flip, or -1 to leave it alone (always for an empty payload)
   */
  public synchronized long pickBit(int payloadLength) {
    if (payloadLength <= 0 || fraction <= 0 || random.nextDouble() >= fraction) {
      return -1;
    }
    return random.nextLong(payloadLength * 8L);
  }

  /**
   * Damages a payload that landed when {@code faults} picks it.
   *
   * @param faults the corruption in force, or null for none
   * @param address start of the payload
   * @param length its bytes
   */
  public static void damage(PayloadFaults faults, long address, int length) {
    long bit = faults == null ? -1 : faults.pickBit(length);
    if (bit >= 0) {
      flip(address, bit);
    }
  }

  /**
   * Flips one bit of native memory.
   *
   * @param address start of the payload
   * @param bit the bit to flip, from {@link #pickBit}
   */
  public static void flip(long address, long bit) {
    long at = address + (bit >>> 3);
    DirectMemory.putByte(at, (byte) (DirectMemory.getByte(at) ^ (1 << (bit & 7))));
  }
}
