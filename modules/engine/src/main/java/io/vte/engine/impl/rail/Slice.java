package io.vte.engine.impl.rail;

import io.vte.verbs.WrOpcode;

/**
 * One contiguous piece of a transfer request, posted as one signaled work request on one rail.
 *
 * <p>Filled by the engine layer (slicer and {@link Routes}), handed to its {@link Route}'s {@link
 * Carrier} ({@link Routing}), moved by that carrier, which reports through {@link
 * SliceCallback#onSliceDone}. A slice is touched by one thread at a time: the submitter until it is
 * routed, then its carrier until {@code onSliceDone}, then the submitter again (which may change
 * the route and route it again).
 */
public final class Slice {

  private final SliceCallback callback;
  private final int index;
  private int opcode;
  private long localAddress;
  private long remoteAddress;
  private int length;
  private Route route;
  private Rail rail;
  private int lkey;
  private int rkey;
  private int attempts;
  private boolean integrity;

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
   * Sets the route and the keys valid on it; counts an attempt ({@link Route#assign} calls this).
   *
   * @param route the route
   * @param rail the verbs rail it runs on, whose peer NIC path keys the endpoint; null for a route
   *     of a transport without endpoints
   * @param lkey local key of the local buffer on the route
   * @param rkey remote key of the remote buffer on the route
   */
  public void assign(Route route, Rail rail, int lkey, int rkey) {
    this.route = route;
    this.rail = rail;
    this.lkey = lkey;
    this.rkey = rkey;
    this.attempts++;
  }

  /**
   * Sets a verbs rail without a route, for a slice handed straight to the owner layer (its own
   * tests, {@code OwnerRouter.submit}); counts an attempt.
   *
   * @param rail the rail
   * @param lkey local key of the local buffer on the rail's local device
   * @param rkey remote key of the remote buffer on the rail's peer device
   */
  public void assign(Rail rail, int lkey, int rkey) {
    assign(null, rail, lkey, rkey);
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
    this.route = null;
    this.rail = null;
    this.lkey = 0;
    this.rkey = 0;
    this.attempts = 0;
  }

  /**
   * Sets whether its carrier checks the bytes end to end (CRC32C of the source against the
   * destination), as its request's batch asks; set before every routing.
   */
  public void checkIntegrity(boolean check) {
    this.integrity = check;
  }

  /**
   * @return true when its carrier must check the bytes end to end ({@link #checkIntegrity})
   */
  public boolean checksIntegrity() {
    return integrity;
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
   * @return the current route, null before the first {@link #assign(Route, Rail, int, int)}
   */
  public Route route() {
    return route;
  }

  /**
   * @return the current verbs rail, null before the first {@link #assign} and on a route of a
   *     transport without endpoints
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
        + (route != null ? route : rail)
        + " attempt "
        + attempts
        + "]";
  }
}
