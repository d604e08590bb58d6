package io.vte.engine.impl.shm;

import io.vte.verbs.MemoryCrc32c;
import io.vte.verbs.PayloadFaults;

/**
 * The end-to-end check of one copier's same-host copies: a CRC32C of the source before the copy,
 * the rail's injected post-copy corruption, then a CRC32C of the destination against it. One per
 * copier thread (its CRC state is not shared); a copy that is not checked costs nothing here.
 */
final class CopyCheck {

  private final MemoryCrc32c crc = new MemoryCrc32c();
  private final SharedMemoryRail rail;
  private boolean checked;

  CopyCheck(SharedMemoryRail rail) {
    this.rail = rail;
  }

  /**
   * Sets whether the next copy is checked (its slice's integrity).
   *
   * @return this
   */
  CopyCheck checking(boolean check) {
    this.checked = check;
    return this;
  }

  /**
   * @return the CRC32C of the source bytes when the copy is checked, else 0
   */
  int sourceCrc(long src, int bytes) {
    return checked ? crc.of(src, bytes) : 0;
  }

  /**
   * The copy landed at {@code dst}: applies the rail's post-copy corruption, if any, then checks.
   *
   * @return false only when a checked copy's destination does not match {@code sourceCrc}
   */
  boolean landed(long dst, int bytes, int sourceCrc) {
    PayloadFaults.damage(rail.landingFaults(), dst, bytes);
    return !checked || crc.of(dst, bytes) == sourceCrc;
  }
}
