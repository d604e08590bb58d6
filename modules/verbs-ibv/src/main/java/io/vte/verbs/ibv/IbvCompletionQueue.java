package io.vte.verbs.ibv;

import io.vte.verbs.CompletionNotificationHandler;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.PostStatus;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WorkCompletionBatch;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An {@code ibv_cq} on its context's completion channel. Polling is one JNI call per batch. Channel
 * events are acknowledged {@value #ACK_BATCH} at a time ({@code ibv_ack_cq_events} takes a lock),
 * and all pending ones before the CQ is destroyed, since {@code ibv_destroy_cq} waits for every
 * event to be acknowledged.
 */
final class IbvCompletionQueue implements CompletionQueue {

  /** Channel events acknowledged per {@code ibv_ack_cq_events} call. */
  static final int ACK_BATCH = 16;

  private static final System.Logger LOG = System.getLogger(IbvCompletionQueue.class.getName());

  private final IbvContext context;
  private final NativeHandle handle;
  private final int capacity;
  private final Object ackLock = new Object();
  private int unacked;
  private boolean acksClosed;
  private final AtomicInteger queuePairs = new AtomicInteger();
  private volatile CompletionNotificationHandler handler;
  private boolean failedAfterPartialPoll;

  /** The verifiers of QPs that READ back, which judge their completions as they are polled. */
  private final ReadBackVerifier.Completions readBacks = new ReadBackVerifier.Completions();

  /**
   * @param context owning context
   * @param cq the {@code ibv_cq*}
   * @param capacity the capacity asked for (the device may round it up)
   */
  IbvCompletionQueue(IbvContext context, long cq, int capacity) {
    this.context = context;
    this.handle = new NativeHandle(cq);
    this.capacity = capacity;
  }

  /**
   * @return the {@code ibv_cq*}
   */
  long handle() {
    return handle.address();
  }

  @Override
  public int capacity() {
    return capacity;
  }

  @Override
  public int poll(WorkCompletionBatch out) {
    long cq = handle.borrow();
    if (cq == 0) {
      out.setCount(0);
      return PostStatus.CLOSED;
    }
    try {
      if (failedAfterPartialPoll) {
        out.setCount(0);
        return PostStatus.CQ_ERROR;
      }
      long address = DirectMemory.address(out.buffer());
      int filled = 0;
      while (true) {
        int room = out.capacity() - filled;
        int n = IbvNative.pollCq(cq, address + (long) filled * WorkCompletionBatch.STRIDE, room);
        if (n < 0) {
          return pollFailed(out, filled, n);
        }
        filled = readBacks.judge(out, filled, filled + n);
        // A READ-back's dropped half left room: fill it, so a short batch still means a drained CQ.
        if (n < room || filled == out.capacity()) {
          out.setCount(filled);
          return filled;
        }
      }
    } finally {
      handle.release();
    }
  }

  /**
   * {@code ibv_poll_cq} failed after earlier chunks were copied out: hands those over now and
   * reports the error on the next poll, so neither is lost.
   */
  private int pollFailed(WorkCompletionBatch out, int filled, int n) {
    int written = (-n) >>> IbvNative.POLL_COUNT_SHIFT;
    int errno = (-n) & ((1 << IbvNative.POLL_COUNT_SHIFT) - 1);
    LOG.log(
        Level.ERROR,
        "ibv_poll_cq on a CQ of '"
            + context.deviceName()
            + "' failed with "
            + IbvErrors.errnoName(errno)
            + " after "
            + written
            + " completion(s)");
    int count = readBacks.judge(out, filled, filled + written);
    out.setCount(count);
    if (count == 0) {
      return PostStatus.CQ_ERROR;
    }
    failedAfterPartialPoll = true;
    return count;
  }

  @Override
  public void setNotificationHandler(CompletionNotificationHandler handler) {
    this.handler = handler;
  }

  @Override
  public int requestNotify() {
    long cq = handle.borrow();
    if (cq == 0) {
      return PostStatus.CLOSED;
    }
    try {
      int rc = IbvNative.reqNotifyCq(cq);
      if (rc != 0) {
        // Without the arm no event ever comes: the CQ's owner would wait forever. It is told now.
        LOG.log(
            Level.ERROR,
            "ibv_req_notify_cq on a CQ of '"
                + context.deviceName()
                + "' failed with "
                + IbvErrors.errnoName(-rc)
                + " (errno "
                + -rc
                + "): its completions will not wake its owner");
        return PostStatus.CQ_ERROR;
      }
      return 0;
    } finally {
      handle.release();
    }
  }

  /**
   * Called by the channel thread for each event of this CQ: counts it for a batched ack, then
   * notifies.
   */
  void onChannelEvent() {
    synchronized (ackLock) {
      if (acksClosed) {
        IbvNative.ackCqEvents(handle.address(), 1);
        return;
      }
      if (++unacked >= ACK_BATCH) {
        IbvNative.ackCqEvents(handle.address(), unacked);
        unacked = 0;
      }
    }
    CompletionNotificationHandler h = handler;
    if (h != null) {
      try {
        h.onCompletion(this);
      } catch (RuntimeException e) {
        LOG.log(
            Level.WARNING,
            "completion handler of a CQ on '" + context.deviceName() + "' failed",
            e);
      }
    }
  }

  /**
   * @return the verifiers of the QPs that send on this CQ with READ-back verify
   */
  ReadBackVerifier.Completions readBacks() {
    return readBacks;
  }

  /** Counts a QP created on this CQ. */
  void attach() {
    queuePairs.incrementAndGet();
  }

  /** Counts a QP on this CQ destroyed. */
  void detach() {
    queuePairs.decrementAndGet();
  }

  /**
   * Destroys the CQ. Idempotent.
   *
   * @throws VerbsException {@link VerbsError#BUSY} while a QP still uses it (as {@code
   *     ibv_destroy_cq} would); the CQ is then unchanged and may be closed after its QPs
   */
  @Override
  public void close() {
    synchronized (ackLock) {
      if (acksClosed) {
        return;
      }
      int users = queuePairs.get();
      if (users > 0) {
        throw new VerbsException(
            VerbsError.BUSY,
            "a CQ of '"
                + context.deviceName()
                + "' is still used by "
                + users
                + " QP(s); close them first");
      }
      acksClosed = true;
      if (unacked > 0) {
        IbvNative.ackCqEvents(handle.address(), unacked);
        unacked = 0;
      }
    }
    IbvNative.destroyCq(handle.retire());
    context.forget(this);
  }
}
