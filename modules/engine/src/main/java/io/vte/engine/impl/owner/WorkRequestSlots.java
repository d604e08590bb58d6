package io.vte.engine.impl.owner;

import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.rail.Slice;

/**
 * The owner's CQ credit as a table of slots, one per signaled work request in flight, sized to the
 * CQ: when no slot is free nothing more is posted, so the CQ cannot overflow. A work-request id is
 * {@code (slot sequence << 32) | slot}; the sequence bumps on every release, so a completion for a
 * slot already accounted for (a forced flush) is recognised as stale. Owner-confined,
 * allocation-free.
 */
final class WorkRequestSlots {

  private final Slice[] slices;
  private final Endpoint[] endpoints;
  private final int[] qps;
  private final int[] sequences;
  private final int[] free;
  private int freeCount;
  private long bytesInFlight;

  WorkRequestSlots(int capacity) {
    slices = new Slice[capacity];
    endpoints = new Endpoint[capacity];
    qps = new int[capacity];
    sequences = new int[capacity];
    free = new int[capacity];
    for (int i = 0; i < capacity; i++) {
      free[i] = capacity - 1 - i;
    }
    freeCount = capacity;
  }

  /**
   * @return true when another work request may be posted
   */
  boolean hasFree() {
    return freeCount > 0;
  }

  /**
   * @return work requests in flight
   */
  int inFlight() {
    return slices.length - freeCount;
  }

  /**
   * @return bytes of the work requests in flight
   */
  long bytesInFlight() {
    return bytesInFlight;
  }

  /**
   * @return the number of slots (the CQ capacity)
   */
  int capacity() {
    return slices.length;
  }

  /**
   * Takes a slot for a slice about to be posted; the caller checked {@link #hasFree()}.
   *
   * @return the work-request id to post it with
   */
  long acquire(Slice slice, Endpoint endpoint, int qp) {
    int slot = free[--freeCount];
    slices[slot] = slice;
    bytesInFlight += slice.length();
    endpoints[slot] = endpoint;
    qps[slot] = qp;
    return ((long) sequences[slot] << 32) | slot;
  }

  /**
   * @param wrId a work-request id from {@link #acquire} (or anything a provider returned)
   * @return its slot, or -1 when it matches no work request in flight
   */
  int slotOf(long wrId) {
    int slot = (int) wrId;
    if (slot < 0
        || slot >= slices.length
        || slices[slot] == null
        || sequences[slot] != (int) (wrId >>> 32)) {
      return -1;
    }
    return slot;
  }

  Slice slice(int slot) {
    return slices[slot];
  }

  Endpoint endpoint(int slot) {
    return endpoints[slot];
  }

  int qp(int slot) {
    return qps[slot];
  }

  /** Frees a slot; a later completion carrying its old id is stale. */
  void release(int slot) {
    bytesInFlight -= slices[slot].length();
    slices[slot] = null;
    endpoints[slot] = null;
    sequences[slot]++;
    free[freeCount++] = slot;
  }
}
