package io.vte.engine.impl.shm;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The first page of a shared-memory buffer file, read and written by its owner and by every
 * same-host peer that maps it: a magic number, the buffer's state (open or revoked), the owner's
 * process id, the data length and the nonce the owner's descriptor carries; after them the copier
 * lock bytes ({@link CopierLocks}). Only volatile loads and stores touch it, which HotSpot turns
 * into an {@link InternalError} when the file was truncated under the mapping (an atomic
 * read-modify-write there would crash the JVM instead).
 */
final class SharedMemoryHeader {

  /** Bytes before the buffer's data: one page, so the data is page-aligned as well. */
  static final int SIZE = 4096;

  /** "VTESHM01" in ASCII. */
  static final long MAGIC = 0x56544553484d3031L;

  static final long STATE_OPEN = 1;
  static final long STATE_REVOKED = 2;

  /** First byte of the copier locks: each copier thread of a JVM locks one byte from here. */
  static final int LOCKS_AT = 64;

  /** Copier lock bytes: {@code LOCKS_AT..SIZE}. */
  static final int LOCKS = SIZE - LOCKS_AT;

  private static final int MAGIC_AT = 0;
  private static final int STATE_AT = 8;
  private static final int PID_AT = 16;
  private static final int LENGTH_AT = 24;
  private static final int NONCE_AT = 32;

  private static final VarHandle LONGS =
      MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

  private final ByteBuffer page;

  /**
   * @param mapping the file's mapping; its first {@link #SIZE} bytes are the header
   */
  SharedMemoryHeader(ByteBuffer mapping) {
    this.page = mapping;
  }

  /** Writes a fresh header: open, owned by {@code pid}, with {@code nonce}. */
  void initialize(long pid, long dataLength, byte[] nonce) {
    LONGS.setVolatile(page, PID_AT, pid);
    LONGS.setVolatile(page, LENGTH_AT, dataLength);
    page.put(NONCE_AT, nonce, 0, nonce.length);
    LONGS.setVolatile(page, STATE_AT, STATE_OPEN);
    LONGS.setVolatile(page, MAGIC_AT, MAGIC);
  }

  long magic() {
    return (long) LONGS.getVolatile(page, MAGIC_AT);
  }

  long ownerPid() {
    return (long) LONGS.getVolatile(page, PID_AT);
  }

  long dataLength() {
    return (long) LONGS.getVolatile(page, LENGTH_AT);
  }

  /**
   * @return true when the header holds exactly this nonce
   */
  boolean hasNonce(byte[] nonce) {
    byte[] held = new byte[nonce.length];
    page.get(NONCE_AT, held, 0, held.length);
    return java.util.Arrays.equals(held, nonce);
  }

  boolean isOpen() {
    return (long) LONGS.getVolatile(page, STATE_AT) == STATE_OPEN;
  }

  /** Marks the buffer revoked: a copier that reads the state after this refuses to copy. */
  void revoke() {
    LONGS.setVolatile(page, STATE_AT, STATE_REVOKED);
  }
}
