package io.vte.mooncake;

import io.vte.api.RegisteredBuffer;
import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;

/**
 * Off-heap memory for tests, standing in for an engine's registered buffer: a region with guard
 * bytes on both sides, so a test can prove that nothing was written outside it.
 */
final class TestMemory implements RegisteredBuffer, AutoCloseable {

  static final int GUARD = 4096;
  static final byte GUARD_BYTE = (byte) 0xA5;

  private final long base;
  private final long length;
  private final String location;
  private volatile boolean registered = true;

  TestMemory(long length, String location) {
    this.length = length;
    this.location = location;
    this.base = DirectMemory.allocate(length + 2L * GUARD);
    DirectMemory.fill(base, length + 2L * GUARD, GUARD_BYTE);
  }

  @Override
  public long address() {
    return base + GUARD;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public String location() {
    return location;
  }

  @Override
  public boolean isRegistered() {
    return registered;
  }

  @Override
  public ByteBuffer byteBuffer() {
    return DirectMemory.wrap(address(), (int) length);
  }

  /** Fills the region with a pattern derived from {@code seed}. */
  void fill(int seed) {
    ByteBuffer b = byteBuffer();
    for (int i = 0; i < length; i++) {
      b.put(i, pattern(seed, i));
    }
  }

  /**
   * @return the index of the first byte in [from, to) that differs from the pattern, or -1
   */
  int mismatch(int seed, int from, int to, int patternOffset) {
    ByteBuffer b = byteBuffer();
    for (int i = from; i < to; i++) {
      if (b.get(i) != pattern(seed, i - from + patternOffset)) {
        return i;
      }
    }
    return -1;
  }

  static byte pattern(int seed, int i) {
    return (byte) (seed * 31 + i * 7 + (i >>> 9));
  }

  /**
   * @return whether every guard byte around the region is intact
   */
  boolean guardsIntact() {
    for (long i = 0; i < GUARD; i++) {
      if (DirectMemory.getByte(base + i) != GUARD_BYTE
          || DirectMemory.getByte(base + GUARD + length + i) != GUARD_BYTE) {
        return false;
      }
    }
    return true;
  }

  byte get(int i) {
    return DirectMemory.getByte(address() + i);
  }

  /**
   * Marks the buffer unregistered, as the engine's unregister does, leaving the memory as it is.
   */
  void unregister() {
    registered = false;
  }

  @Override
  public void close() {
    registered = false;
    DirectMemory.free(base);
  }

  @Override
  public String toString() {
    return "TestMemory[0x" + Long.toHexString(address()) + "+" + length + " " + location + "]";
  }
}
