package io.vte.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable, flat batch of work requests in a direct buffer, so posting allocates nothing and the
 * JNI provider reads it without per-WR calls. One SGE per WR.
 *
 * <p>Layout of each {@value #STRIDE}-byte entry, native byte order: {@code wr_id u64 @0}, {@code
 * local_addr u64 @8}, {@code remote_addr u64 @16}, {@code length u32 @24}, {@code lkey u32 @28},
 * {@code rkey u32 @32}, {@code imm_data u32 @36}, {@code opcode u8 @40}, {@code flags u8 @41},
 * reserved to 48. The native shim checks these offsets at load.
 *
 * <p>Not thread-safe: one batch belongs to one poster.
 */
public final class WorkRequestBatch {

  /** Bytes per entry. */
  public static final int STRIDE = 48;

  /** Offset of wr_id. */
  public static final int OFF_WR_ID = 0;

  /** Offset of local_addr. */
  public static final int OFF_LOCAL_ADDR = 8;

  /** Offset of remote_addr. */
  public static final int OFF_REMOTE_ADDR = 16;

  /** Offset of length. */
  public static final int OFF_LENGTH = 24;

  /** Offset of lkey. */
  public static final int OFF_LKEY = 28;

  /** Offset of rkey. */
  public static final int OFF_RKEY = 32;

  /** Offset of imm_data. */
  public static final int OFF_IMM = 36;

  /** Offset of opcode. */
  public static final int OFF_OPCODE = 40;

  /** Offset of flags. */
  public static final int OFF_FLAGS = 41;

  private final ByteBuffer buf;
  private final int capacity;
  private int size;
  private int badIndex = -1;

  private WorkRequestBatch(int capacity) {
    this.capacity = capacity;
    this.buf = ByteBuffer.allocateDirect(capacity * STRIDE).order(ByteOrder.nativeOrder());
  }

  /**
   * @param capacity maximum number of WRs, at least 1
   * @return an empty batch
   */
  public static WorkRequestBatch allocate(int capacity) {
    if (capacity < 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "batch capacity must be >= 1, got " + capacity);
    }
    return new WorkRequestBatch(capacity);
  }

  /**
   * @return the maximum number of WRs
   */
  public int capacity() {
    return capacity;
  }

  /**
   * @return the number of WRs added since the last {@link #clear()}
   */
  public int size() {
    return size;
  }

  /**
   * @return true when no more WRs fit
   */
  public boolean isFull() {
    return size == capacity;
  }

  /** Empties the batch for reuse. */
  public void clear() {
    size = 0;
    badIndex = -1;
  }

  /**
   * Appends a work request.
   *
   * @param wrId caller's identifier, echoed in the completion
   * @param opcode a {@link WrOpcode}
   * @param flags {@link WrFlags}
   * @param localAddress local buffer address
   * @param length bytes
   * @param lkey local key of the region holding the local buffer
   * @param remoteAddress remote address (one-sided ops)
   * @param rkey remote key (one-sided ops)
   * @return the entry's index, or -1 when the batch is full
   */
  public int add(
      long wrId,
      int opcode,
      int flags,
      long localAddress,
      int length,
      int lkey,
      long remoteAddress,
      int rkey) {
    return add(wrId, opcode, flags, localAddress, length, lkey, remoteAddress, rkey, 0);
  }

  /**
   * Appends a work request with immediate data.
   *
   * @param wrId caller's identifier
   * @param opcode a {@link WrOpcode}
   * @param flags {@link WrFlags}
   * @param localAddress local buffer address
   * @param length bytes
   * @param lkey local key
   * @param remoteAddress remote address
   * @param rkey remote key
   * @param immData immediate data (WITH_IMM opcodes)
   * @return the entry's index, or -1 when the batch is full
   */
  public int add(
      long wrId,
      int opcode,
      int flags,
      long localAddress,
      int length,
      int lkey,
      long remoteAddress,
      int rkey,
      int immData) {
    if (size == capacity) {
      return -1;
    }
    int i = size++;
    int base = i * STRIDE;
    buf.putLong(base + OFF_WR_ID, wrId);
    buf.putLong(base + OFF_LOCAL_ADDR, localAddress);
    buf.putLong(base + OFF_REMOTE_ADDR, remoteAddress);
    buf.putInt(base + OFF_LENGTH, length);
    buf.putInt(base + OFF_LKEY, lkey);
    buf.putInt(base + OFF_RKEY, rkey);
    buf.putInt(base + OFF_IMM, immData);
    buf.put(base + OFF_OPCODE, (byte) opcode);
    buf.put(base + OFF_FLAGS, (byte) flags);
    return i;
  }

  /**
   * @param i index
   * @return wr_id
   */
  public long wrId(int i) {
    return buf.getLong(i * STRIDE + OFF_WR_ID);
  }

  /**
   * @param i index
   * @return local address
   */
  public long localAddress(int i) {
    return buf.getLong(i * STRIDE + OFF_LOCAL_ADDR);
  }

  /**
   * @param i index
   * @return remote address
   */
  public long remoteAddress(int i) {
    return buf.getLong(i * STRIDE + OFF_REMOTE_ADDR);
  }

  /**
   * @param i index
   * @return length in bytes (unsigned 32-bit value as int)
   */
  public int length(int i) {
    return buf.getInt(i * STRIDE + OFF_LENGTH);
  }

  /**
   * @param i index
   * @return lkey
   */
  public int lkey(int i) {
    return buf.getInt(i * STRIDE + OFF_LKEY);
  }

  /**
   * @param i index
   * @return rkey
   */
  public int rkey(int i) {
    return buf.getInt(i * STRIDE + OFF_RKEY);
  }

  /**
   * @param i index
   * @return immediate data
   */
  public int immData(int i) {
    return buf.getInt(i * STRIDE + OFF_IMM);
  }

  /**
   * @param i index
   * @return opcode ({@link WrOpcode})
   */
  public int opcode(int i) {
    return buf.get(i * STRIDE + OFF_OPCODE) & 0xff;
  }

  /**
   * @param i index
   * @return flags ({@link WrFlags})
   */
  public int flags(int i) {
    return buf.get(i * STRIDE + OFF_FLAGS) & 0xff;
  }

  /**
   * @return index of the first WR a failed post did not accept (those before it were posted), or -1
   *     after a successful post
   */
  public int badIndex() {
    return badIndex;
  }

  /**
   * Set by providers when a post fails part-way.
   *
   * @param index the first WR not posted, or -1
   */
  public void setBadIndex(int index) {
    this.badIndex = index;
  }

  /**
   * @return the backing direct buffer (native order), for providers
   */
  public ByteBuffer buffer() {
    return buf;
  }
}
