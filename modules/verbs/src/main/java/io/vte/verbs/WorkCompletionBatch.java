package io.vte.verbs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable, flat array of work completions in a direct buffer, filled by {@link
 * CompletionQueue#poll(WorkCompletionBatch)}.
 *
 * <p>Layout of each {@value #STRIDE}-byte entry, native byte order: {@code wr_id u64 @0}, {@code
 * byte_len u32 @8}, {@code qp_num u32 @12}, {@code status u32 @16}, {@code opcode u32 @20}, {@code
 * vendor_err u32 @24}, {@code imm_data u32 @28}. The native shim checks these offsets at load.
 */
public final class WorkCompletionBatch {

  /** Bytes per entry. */
  public static final int STRIDE = 32;

  /** Offset of wr_id. */
  public static final int OFF_WR_ID = 0;

  /** Offset of byte_len. */
  public static final int OFF_BYTE_LEN = 8;

  /** Offset of qp_num. */
  public static final int OFF_QP_NUM = 12;

  /** Offset of status. */
  public static final int OFF_STATUS = 16;

  /** Offset of opcode. */
  public static final int OFF_OPCODE = 20;

  /** Offset of vendor_err. */
  public static final int OFF_VENDOR_ERR = 24;

  /** Offset of imm_data. */
  public static final int OFF_IMM = 28;

  private final ByteBuffer buf;
  private final int capacity;
  private int count;

  private WorkCompletionBatch(int capacity) {
    this.capacity = capacity;
    this.buf = ByteBuffer.allocateDirect(capacity * STRIDE).order(ByteOrder.nativeOrder());
  }

  /**
   * @param capacity maximum completions per poll, at least 1
   * @return an empty batch
   */
  public static WorkCompletionBatch allocate(int capacity) {
    if (capacity < 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "batch capacity must be >= 1, got " + capacity);
    }
    return new WorkCompletionBatch(capacity);
  }

  /**
   * @return the maximum completions per poll
   */
  public int capacity() {
    return capacity;
  }

  /**
   * @return the number of completions from the last poll
   */
  public int count() {
    return count;
  }

  /**
   * Set by providers after filling entries.
   *
   * @param count number of valid entries
   */
  public void setCount(int count) {
    this.count = count;
  }

  /**
   * Writes one entry; used by providers.
   *
   * @param i index
   * @param wrId the WR's id
   * @param status {@link WcStatus} code
   * @param opcode {@link WcOpcode}
   * @param byteLen bytes transferred
   * @param qpNum the QP it came from
   * @param vendorErr vendor error code (0 if none)
   * @param immData immediate data
   */
  public void put(
      int i,
      long wrId,
      int status,
      int opcode,
      int byteLen,
      int qpNum,
      int vendorErr,
      int immData) {
    int base = i * STRIDE;
    buf.putLong(base + OFF_WR_ID, wrId);
    buf.putInt(base + OFF_BYTE_LEN, byteLen);
    buf.putInt(base + OFF_QP_NUM, qpNum);
    buf.putInt(base + OFF_STATUS, status);
    buf.putInt(base + OFF_OPCODE, opcode);
    buf.putInt(base + OFF_VENDOR_ERR, vendorErr);
    buf.putInt(base + OFF_IMM, immData);
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
   * @return bytes transferred
   */
  public int byteLen(int i) {
    return buf.getInt(i * STRIDE + OFF_BYTE_LEN);
  }

  /**
   * @param i index
   * @return QP number
   */
  public int qpNum(int i) {
    return buf.getInt(i * STRIDE + OFF_QP_NUM);
  }

  /**
   * @param i index
   * @return status code ({@link WcStatus#code()})
   */
  public int status(int i) {
    return buf.getInt(i * STRIDE + OFF_STATUS);
  }

  /**
   * @param i index
   * @return opcode ({@link WcOpcode})
   */
  public int opcode(int i) {
    return buf.getInt(i * STRIDE + OFF_OPCODE);
  }

  /**
   * @param i index
   * @return vendor error
   */
  public int vendorErr(int i) {
    return buf.getInt(i * STRIDE + OFF_VENDOR_ERR);
  }

  /**
   * @param i index
   * @return immediate data
   */
  public int immData(int i) {
    return buf.getInt(i * STRIDE + OFF_IMM);
  }

  /**
   * @return the backing direct buffer (native order), for providers
   */
  public ByteBuffer buffer() {
    return buf;
  }
}
