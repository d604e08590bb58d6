package io.vte.verbs.soft.impl;

import io.vte.verbs.PostStatus;
import io.vte.verbs.WorkRequestBatch;

/**
 * A QP's preallocated receive ring: posters append under the QP's lock, the NIC thread consumes.
 */
final class RecvQueue {

  final int capacity;
  final long[] wrId;
  final long[] address;
  final int[] length;
  final int[] lkey;
  private volatile long posted;
  private volatile long consumed;

  RecvQueue(int capacity) {
    this.capacity = capacity;
    wrId = new long[capacity];
    address = new long[capacity];
    length = new int[capacity];
    lkey = new int[capacity];
  }

  /**
   * @return {@link PostStatus#OK} or {@link PostStatus#QUEUE_FULL} (caller holds the QP lock)
   */
  int add(WorkRequestBatch batch) {
    long p = posted;
    int n = batch.size();
    int i = 0;
    int rc = PostStatus.OK;
    for (; i < n; i++) {
      if (p - consumed >= capacity) {
        rc = PostStatus.QUEUE_FULL;
        break;
      }
      int s = (int) (p % capacity);
      wrId[s] = batch.wrId(i);
      address[s] = batch.localAddress(i);
      length[s] = batch.length(i);
      lkey[s] = batch.lkey(i);
      p++;
    }
    batch.setBadIndex(i < n ? i : -1);
    posted = p;
    return rc;
  }

  long posted() {
    return posted;
  }

  long consumed() {
    return consumed;
  }

  /** NIC thread: entries below {@code index} are consumed. */
  void consume(long index) {
    consumed = index;
  }
}
