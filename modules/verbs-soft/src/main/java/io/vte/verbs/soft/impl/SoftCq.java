package io.vte.verbs.soft.impl;

import io.vte.verbs.CompletionNotificationHandler;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WorkCompletionBatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A fixed-capacity completion ring with one producer, the device's NIC thread (the one thread that
 * moves the bytes of the device's QPs), and one consumer. The consumer reads the ring without a
 * lock (release/acquire ordering on the indices); {@link #poll} does no socket I/O, and {@link
 * #progress()} has nothing to do: the NIC thread, busy-polling after a small request went out,
 * reads the response and completes it without a wake-up.
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

  /**
   * Adds a completion (NIC thread).
   *
   * @return false when the CQ is closed, in error, or just overflowed (the caller raises CQ_ERR
   *     once)
   */
  boolean add(long wrId, int status, int opcode, int byteLen, int qpNum, int imm) {
    if (closed || overflowed) {
      return false;
    }
    long t = tail.get();
    if (t - head.get() >= capacity) {
      overflowed = true;
      device.onCqOverflow(this);
      return false;
    }
    int i = (int) (t % capacity);
    wrIds[i] = wrId;
    statuses[i] = status;
    opcodes[i] = opcode;
    byteLens[i] = byteLen;
    qpNums[i] = qpNum;
    imms[i] = imm;
    tail.lazySet(t + 1);
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
          device.logHandlerFailure("completion notification handler", e);
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
