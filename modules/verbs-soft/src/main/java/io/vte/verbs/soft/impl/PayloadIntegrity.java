package io.vte.verbs.soft.impl;

import io.vte.verbs.MemoryCrc32c;
import io.vte.verbs.PayloadFaults;
import io.vte.verbs.soft.impl.wire.AccessGate;
import io.vte.verbs.soft.impl.wire.FrameHeader;
import io.vte.verbs.soft.impl.wire.GuardedAccess;

/**
 * The end-to-end payload check of one half of a QP ({@link FrameHeader#CRC}): the CRC32C of a
 * payload's source memory before it is sent, and, once a payload has landed, the device's injected
 * post-copy corruption followed by the CRC32C of the destination memory against the one the sender
 * computed. Each access holds the region's guard. Used by whoever drives its half, one thread at a
 * time; allocates nothing.
 */
final class PayloadIntegrity {

  private final SoftDevice device;
  private final MemoryCrc32c crc = new MemoryCrc32c();

  /**
   * The last source CRC computed, and what it was for: a frame the sink had no room for is offered
   * again (many times while a write drains), and must not cost a CRC each time.
   */
  private long lastKey = -1;

  private long lastAddress;
  private int lastLength;
  private int lastCrc;

  PayloadIntegrity(SoftDevice device) {
    this.device = device;
  }

  /**
   * @param key what the payload is to its sender (a send-queue index, a response's sequence), >= 0:
   *     the CRC of the same key, address and length as the last call is not computed again
   * @return the CRC32C of the source bytes, or 0 when their region closed (the send then fails on
   *     the closed region anyway)
   */
  int sourceCrc(long key, SoftMr region, long address, int length) {
    if (key == lastKey && address == lastAddress && length == lastLength) {
      return lastCrc;
    }
    if (!GuardedAccess.acquire(region, null)) {
      return 0;
    }
    try {
      lastCrc = crc.of(address, length);
    } finally {
      GuardedAccess.release(region, null);
    }
    lastKey = key;
    lastAddress = address;
    lastLength = length;
    return lastCrc;
  }

  /**
   * A payload landed in {@code [address, address + length)}: applies the injected post-copy
   * corruption, if any, then checks the bytes when the sender sent their CRC32C.
   *
   * @param gate a further gate of the destination (a responder QP's), or null
   * @param checked true when {@code expectedCrc} came with the payload
   * @return false only when a checked payload's destination bytes do not match; true when they do,
   *     when unchecked, or when the region closed meanwhile (nothing left to check)
   */
  boolean landed(
      SoftMr region, AccessGate gate, long address, int length, boolean checked, int expectedCrc) {
    PayloadFaults faults = device.landingFaults();
    if (faults == null && !checked) {
      return true;
    }
    if (!GuardedAccess.acquire(region, gate)) {
      return true;
    }
    try {
      PayloadFaults.damage(faults, address, length);
      return !checked || crc.of(address, length) == expectedCrc;
    } finally {
      GuardedAccess.release(region, gate);
    }
  }
}
