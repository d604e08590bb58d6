package io.vte.verbs.soft.impl;

import io.vte.verbs.CompletionNotificationHandler;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WorkCompletionBatch;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed-capacity completion ring with one consumer, whose {@link #progress()} reads the responses
 * of the QPs that send into it.
 *
 * <p>Producers are the device's NIC thread and, in {@link #progress()}, the consumer itself: a
 * consumer that progresses a CQ it has not armed reads the responses of its senders' connections in
 * place of the NIC thread ({@link RequesterAccess#readAsPoller()}), as a polled RDMA completion
 * needs no interrupt and no other core, so an ACK reaches the ring without waking a thread. Arming
 * hands that reading back to the NIC thread, which then reads what waits and wakes the consumer.
 * {@link #poll} only takes completions from the ring: it does no socket I/O. Producers serialize on
 * a lock held only for the ring write; the consumer reads the ring without one (release/acquire
 * ordering on the indices).
 */
final class SoftCq implements CompletionQueue {

  private final SoftDevice device;
  private final int capacity;
  private final long[] wrIds;
  private final int[] statuses;
  private final int[] opcodes;
  private final int[] byteLens;
  private final int[] qpNums;
  private final int[] imms;
  private final AtomicLong head = new AtomicLong();
  private final AtomicLong tail = new AtomicLong();
  private final AtomicBoolean armed = new AtomicBoolean();
  private final Object producers = new Object();

  /** The requesters of the QPs that send into this CQ (copy on write). */
  private volatile RequesterAccess[] senders = new RequesterAccess[0];

  private volatile CompletionNotificationHandler handler;
  private volatile boolean overflowed;
  private volatile boolean closed;

  SoftCq(SoftDevice device, int capacity) {
    this.device = device;
    this.capacity = capacity;
    wrIds = new long[capacity];
    statuses = new int[capacity];
    opcodes = new int[capacity];
    byteLens = new int[capacity];
    qpNums = new int[capacity];
    imms = new int[capacity];
  }

  SoftDevice device() {
    return device;
  }

  @Override
  public int capacity() {
    return capacity;
  }

  /** A QP sending into this CQ was created: its responses may be read by the consumer. */
  synchronized void addSender(RequesterAccess requester) {
    RequesterAccess[] a = Arrays.copyOf(senders, senders.length + 1);
    a[a.length - 1] = requester;
    senders = a;
  }

  /** A QP sending into this CQ was closed. */
  synchronized void removeSender(RequesterAccess requester) {
    RequesterAccess[] a = senders;
    for (int i = 0; i < a.length; i++) {
      if (a[i] == requester) {
        RequesterAccess[] b = new RequesterAccess[a.length - 1];
        System.arraycopy(a, 0, b, 0, i);
        System.arraycopy(a, i + 1, b, i, a.length - i - 1);
        senders = b;
        return;
      }
    }
  }

  /**
   * Adds a completion (NIC thread, or the consumer while it reads its senders' responses).
   *
   * @return false when the CQ is closed, in error, or just overflowed (the caller raises CQ_ERR
   *     once)
   */
  boolean add(long wrId, int status, int opcode, int byteLen, int qpNum, int imm) {
    boolean overflowedNow;
    synchronized (producers) {
      if (closed || overflowed) {
        return false;
      }
      long t = tail.get();
      overflowedNow = t - head.get() >= capacity;
      if (overflowedNow) {
        overflowed = true;
      } else {
        int i = (int) (t % capacity);
        wrIds[i] = wrId;
        statuses[i] = status;
        opcodes[i] = opcode;
        byteLens[i] = byteLen;
        qpNums[i] = qpNum;
        imms[i] = imm;
        tail.lazySet(t + 1);
      }
    }
    if (overflowedNow) {
      device.onCqOverflow(this);
      return false;
    }
    notifyIfArmed();
    return true;
  }

  private void notifyIfArmed() {
    if (armed.get() && armed.compareAndSet(true, false)) {
      CompletionNotificationHandler h = handler;
      if (h != null) {
        try {
          h.onCompletion(this);
        } catch (RuntimeException | Error e) { // a user's handler must not take the NIC down
          device.log().handlerFailure("completion notification handler", e);
        }
      }
    }
  }

  @Override
  public int poll(WorkCompletionBatch out) {
    if (closed) {
      out.setCount(0);
      return PostStatus.CLOSED;
    }
    long h = head.get();
    long available = tail.get() - h;
    int n = (int) Math.min(available, out.capacity());
    for (int k = 0; k < n; k++) {
      int i = (int) ((h + k) % capacity);
      out.put(k, wrIds[i], statuses[i], opcodes[i], byteLens[i], qpNums[i], 0, imms[i]);
    }
    out.setCount(n);
    if (n > 0) {
      head.lazySet(h + n);
      return n;
    }
    return overflowed ? PostStatus.CQ_ERROR : 0;
  }

  /** The consumer, progressing a ring it has not armed, reads its senders' responses. */
  @Override
  public int progress() {
    if (closed || armed.get()) {
      return 0;
    }
    int read = 0;
    for (RequesterAccess r : senders) {
      if (r.readAsPoller()) {
        read++;
      }
    }
    return read;
  }

  /** Arming: the NIC thread takes back the reading of every sender whose reading it gave up. */
  private void handBackSenders() {
    for (RequesterAccess r : senders) {
      r.handBackReads();
    }
  }

  @Override
  public void setNotificationHandler(CompletionNotificationHandler handler) {
    this.handler = handler;
  }

  @Override
  public int requestNotify() {
    if (closed) {
      return PostStatus.CLOSED;
    }
    if (overflowed) {
      return PostStatus.CQ_ERROR;
    }
    armed.set(true);
    handBackSenders();
    return PostStatus.OK;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      device.forget(this);
    }
  }
}
