package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.soft.impl.SoftMr;

/**
 * Responses a responder still has to send (ACK, NAK, READ_RESP), in order. Bounded: when it is full
 * the responder stops reading requests, which back-pressures the requester through TCP. NIC thread
 * only.
 */
public final class ResponseQueue {

  public static final int CAPACITY = 512;

  private final int[] opcode = new int[CAPACITY];
  private final int[] status = new int[CAPACITY];
  private final int[] seq = new int[CAPACITY];
  private final long[] address = new long[CAPACITY];
  private final int[] length = new int[CAPACITY];
  private final SoftMr[] region = new SoftMr[CAPACITY];
  private long head;
  private long tail;

  public boolean hasRoom() {
    return tail - head < CAPACITY;
  }

  public boolean isEmpty() {
    return head == tail;
  }

  public void add(int op, int st, int sequence, long addr, int len, SoftMr mr) {
    int i = (int) (tail % CAPACITY);
    opcode[i] = op;
    status[i] = st;
    seq[i] = sequence;
    address[i] = addr;
    length[i] = len;
    region[i] = mr;
    tail++;
  }

  /**
   * Folds an ACK of {@code sequence} into the newest queued response when that is an ACK of an
   * earlier request: an ACK acknowledges every request before it, so the requester learns the same
   * from one frame.
   *
   * @return true when folded (nothing to add)
   */
  public boolean foldAck(int sequence) {
    if (head == tail) {
      return false;
    }
    int i = (int) ((tail - 1) % CAPACITY);
    if (opcode[i] != FrameHeader.ACK || sequence - seq[i] <= 0) {
      return false;
    }
    seq[i] = sequence;
    return true;
  }

  public int headOpcode() {
    return opcode[(int) (head % CAPACITY)];
  }

  public int headStatus() {
    return status[(int) (head % CAPACITY)];
  }

  public int headSeq() {
    return seq[(int) (head % CAPACITY)];
  }

  public long headAddress() {
    return address[(int) (head % CAPACITY)];
  }

  public int headLength() {
    return length[(int) (head % CAPACITY)];
  }

  public SoftMr headRegion() {
    return region[(int) (head % CAPACITY)];
  }

  public void pop() {
    region[(int) (head % CAPACITY)] = null;
    head++;
  }

  public void clear() {
    while (head != tail) {
      pop();
    }
  }
}
