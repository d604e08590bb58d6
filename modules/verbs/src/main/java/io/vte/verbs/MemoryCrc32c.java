package io.vte.verbs;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32C of native memory ranges (registered regions, mapped files), through one reusable direct
 * view so that the JDK's intrinsic runs on the memory in place: nothing is allocated per range. Not
 * thread-safe: one per thread, or per object confined to one thread at a time.
 */
public final class MemoryCrc32c {

  private final CRC32C crc = new CRC32C();
  private ByteBuffer view;

  /**
   * @param address start of the bytes (ignored when {@code length} is 0)
   * @param length number of bytes, >= 0
   * @return the CRC32C of those bytes, as the low 32 bits of an int
   */
  public int of(long address, int length) {
    crc.reset();
    if (length > 0) {
      if (view == null) {
        view = DirectMemory.wrap(address, length);
      } else {
        DirectMemory.retarget(view, address, length);
      }
      crc.update(view);
    }
    return (int) crc.getValue();
  }
}
