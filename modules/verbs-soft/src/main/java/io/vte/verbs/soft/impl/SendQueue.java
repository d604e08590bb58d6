package io.vte.verbs.soft.impl;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;

/**
 * A QP's preallocated send ring. Posters append under the QP's lock ({@link #add}); the NIC thread
 * reads entries and retires them by advancing {@link #retire}. Indices only grow; a slot is {@code
 * index % capacity}.
 */
final class SendQueue {

  final int capacity;
  final long[] wrId;
  final long[] localAddress;
  final long[] remoteAddress;
  final int[] length;
  final int[] lkey;
  final int[] rkey;
  final int[] imm;
  final byte[] opcode;
  final byte[] flags;
  private final int maxInline;
  private long inlineArea;
  private volatile long posted;
  private volatile long retired;

  SendQueue(int capacity, int maxInline) {
    this.capacity = capacity;
    this.maxInline = maxInline;
    wrId = new long[capacity];
    localAddress = new long[capacity];
    remoteAddress = new long[capacity];
    length = new int[capacity];
    lkey = new int[capacity];
    rkey = new int[capacity];
    imm = new int[capacity];
    opcode = new byte[capacity];
    flags = new byte[capacity];
    inlineArea = maxInline > 0 ? DirectMemory.allocate((long) capacity * maxInline) : 0;
  }

  /**
   * Copies a batch into the ring (caller holds the QP lock). Stops at the first WR it cannot
   * accept.
   *
   * @return {@link PostStatus#OK}, {@link PostStatus#QUEUE_FULL} or {@link
   *     PostStatus#INVALID_STATE}
   */
  int add(WorkRequestBatch batch) {
    long p = posted;
    int rc = PostStatus.OK;
    int n = batch.size();
    int i = 0;
    for (; i < n; i++) {
      int op = batch.opcode(i);
      int fl = batch.flags(i);
      int len = batch.length(i);
      if (op > WrOpcode.RDMA_READ) {
        rc = PostStatus.INVALID_STATE;
        break;
      }
      boolean inline = (fl & WrFlags.INLINE) != 0 && len > 0;
      if (inline && (op == WrOpcode.RDMA_READ || len < 0 || len > maxInline)) {
        rc = PostStatus.INVALID_STATE;
        break;
      }
      if (p - retired >= capacity) {
        rc = PostStatus.QUEUE_FULL;
        break;
      }
      int s = (int) (p % capacity);
      wrId[s] = batch.wrId(i);
      remoteAddress[s] = batch.remoteAddress(i);
      length[s] = len;
      lkey[s] = batch.lkey(i);
      rkey[s] = batch.rkey(i);
      imm[s] = batch.immData(i);
      opcode[s] = (byte) op;
      flags[s] = (byte) fl;
      if (inline) {
        long dst = inlineArea + (long) s * maxInline;
        DirectMemory.copy(batch.localAddress(i), dst, len);
        localAddress[s] = dst;
      } else {
        localAddress[s] = batch.localAddress(i);
      }
      p++;
    }
    batch.setBadIndex(i < n ? i : -1);
    posted = p;
    return rc;
  }

  long posted() {
    return posted;
  }

  long retired() {
    return retired;
  }

  /**
   * Under the requester's lock: entries below {@code index} are completed, flushed or discarded.
   */
  void retire(long index) {
    retired = index;
  }

  boolean isInline(int slot) {
    return (flags[slot] & WrFlags.INLINE) != 0;
  }

  /**
   * @return whether the WR asks for the end-to-end payload check: {@link WrFlags#INTEGRITY} on an
   *     RDMA WRITE or READ
   */
  boolean checksIntegrity(int slot) {
    return (flags[slot] & WrFlags.INTEGRITY) != 0
        && (opcode[slot] == WrOpcode.RDMA_WRITE || opcode[slot] == WrOpcode.RDMA_READ);
  }

  /**
   * @return whether the WR's data lives in a local region (not inline, not empty)
   */
  boolean hasLocalData(int slot) {
    return length[slot] > 0 && !isInline(slot);
  }

  /**
   * Checks a WR against its local region before it is sent.
   *
   * @param mr the region its lkey names, or null
   * @param pd the QP's protection domain
   * @param maxMessageBytes the device's largest message
   * @return 0, or the status the WR fails with
   */
  int checkLocal(int slot, SoftMr mr, SoftPd pd, long maxMessageBytes) {
    int len = length[slot];
    if (len < 0 || len > maxMessageBytes) {
      return WcStatus.LOC_LEN_ERR.code();
    }
    if (!hasLocalData(slot)) {
      return 0;
    }
    int need = opcode[slot] == WrOpcode.RDMA_READ ? AccessFlags.LOCAL_WRITE : 0;
    return mr != null && mr.permits(pd, need, localAddress[slot], len)
        ? 0
        : WcStatus.LOC_PROT_ERR.code();
  }

  boolean isSignaled(int slot) {
    return (flags[slot] & WrFlags.SIGNALED) != 0;
  }

  /** Frees the inline area (NIC thread, when the QP is torn down). */
  void free() {
    if (inlineArea != 0) {
      DirectMemory.free(inlineArea);
      inlineArea = 0;
    }
  }
}
