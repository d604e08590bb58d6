package io.vte.engine.impl.rail;

import io.vte.verbs.WrOpcode;

/**
 * One contiguous piece of a transfer request, posted as one signaled work request on one rail.
 *
 * <p>Filled by the engine layer (slicer and rail selector), handed to a {@link SliceRouter}, posted
 * and completed by the rail's owner, which reports through {@link SliceCallback#onSliceDone}. A
 * slice is touched by one thread at a time: the submitter until {@code submit}, then its owner
 * until {@code onSliceDone}, then the submitter again (which may change the rail and resubmit it).
 */
public final class Slice {

  private final SliceCallback callback;
  private final int index;
  private int opcode;
  private long localAddress;
  private long remoteAddress;
  private int length;
  private Rail rail;
  private int lkey;
  private int rkey;
  private int attempts;

  /**
   * @param callback the request it belongs to
   * @param index its index within the request (for the request's bookkeeping)
   * @param opcode {@link WrOpcode#RDMA_READ} or {@link WrOpcode#RDMA_WRITE}
   * @param localAddress local address of the slice
   * @param remoteAddress remote address of the slice
   * @param length bytes, positive
   */
  public Slice(
      SliceCallback callback,
      int index,
      int opcode,
      long localAddress,
      long remoteAddress,
      int length) {
    this.callback = callback;
    this.index = index;
    this.opcode = opcode;
    this.localAddress = localAddress;
    this.remoteAddress = remoteAddress;
    this.length = length;
  }

  /**
   * Sets the rail and the keys valid on it; counts an attempt.
   *
   * @param rail the rail
   * @param lkey local key of the local buffer on the rail's local device
   * @param rkey remote key of the remote buffer on the rail's peer device
   */
  public void assign(Rail rail, int lkey, int rkey) {
    this.rail = rail;
    this.lkey = lkey;
    this.rkey = rkey;
    this.attempts++;
  }

  /**
   * Points a reused slice at another range, for the next request of a pooled submit record; only
   * while no owner holds it.
   *
   * @param opcode {@link WrOpcode#RDMA_READ} or {@link WrOpcode#RDMA_WRITE}
   * @param localAddress local address of the slice
   * @param remoteAddress remote address of the slice
   * @param length bytes, positive
   */
  public void retarget(int opcode, long localAddress, long remoteAddress, int length) {
    this.opcode = opcode;
    this.localAddress = localAddress;
    this.remoteAddress = remoteAddress;
    this.length = length;
  }

  /** Forgets the rail and the attempts, for the next post of reused records. */
  public void reset() {
    this.rail = null;
    this.lkey = 0;
    this.rkey = 0;
    this.attempts = 0;
  }

  /**
   * @return the request it belongs to
   */
  public SliceCallback callback() {
    return callback;
  }

  /**
   * @return its index within the request
   */
  public int index() {
    return index;
  }

  /**
   * @return the work-request opcode
   */
  public int opcode() {
    return opcode;
  }

  /**
   * @return local address
   */
  public long localAddress() {
    return localAddress;
  }

  /**
   * @return remote address
   */
  public long remoteAddress() {
    return remoteAddress;
  }

  /**
   * @return length in bytes
   */
  public int length() {
    return length;
  }

  /**
   * @return the current rail, null before the first {@link #assign}
   */
  public Rail rail() {
    return rail;
  }

  /**
   * @return local key on the current rail
   */
  public int lkey() {
    return lkey;
  }

  /**
   * @return remote key on the current rail
   */
  public int rkey() {
    return rkey;
  }

  /**
   * @return how many times it was assigned a rail
   */
  public int attempts() {
    return attempts;
  }

  @Override
  public String toString() {
    return "Slice["
        + index
        + " "
        + WrOpcode.name(opcode)
        + " "
        + length
        + "B via "
        + rail
        + " attempt "
        + attempts
        + "]";
  }
}
