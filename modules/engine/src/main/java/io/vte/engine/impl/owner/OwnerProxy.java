package io.vte.engine.impl.owner;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.Slice;
import io.vte.engine.impl.SliceStatus;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The cross-thread side of an owner: a lock-free command queue (slices and {@link OwnerCommand}s) and
 * one wake-up per batch, guarded by a "wake pending" flag the owner clears at the start of each cycle.
 * After {@link #close()} anything offered is completed at once ({@code ENGINE_CLOSED} / aborted).
 */
final class OwnerProxy {

  private static final VteException CLOSED =
      new VteException(ErrorCode.ENGINE_CLOSED, "the owner of this rail is closed");

  private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean wakePending = new AtomicBoolean();
  private volatile Runnable waker = () -> {};
  private volatile boolean bound;
  private volatile boolean closed;

  /** Sets what schedules the owner's next cycle (the verticle). */
  void bind(Runnable waker) {
    this.waker = waker;
    this.bound = true;
  }

  /** @return true once a verticle drives the owner */
  boolean isBound() {
    return bound;
  }

  /** Queues a slice and wakes the owner. */
  void submit(Slice slice) {
    offer(slice);
    wake();
  }

  /** Queues a slice without waking; the caller calls {@link #wake()} once for the batch. */
  void offer(Slice slice) {
    queue.offer(slice);
    if (closed) {
      drainClosed();
    }
  }

  /** Queues a command and wakes the owner. */
  void execute(OwnerCommand command) {
    queue.offer(command);
    if (closed) {
      drainClosed();
    }
    wake();
  }

  /** Wakes the owner unless a wake-up is already pending. */
  void wake() {
    if (wakePending.compareAndSet(false, true)) {
      waker.run();
    }
  }

  /**
   * Claims the pending wake-up for a self-scheduled cycle.
   *
   * @return true when the caller must schedule the cycle (no wake-up was pending)
   */
  boolean claimWake() {
    return wakePending.compareAndSet(false, true);
  }

  /** Called by the owner's cycle before it drains: later offers schedule another cycle. */
  void clearWake() {
    wakePending.set(false);
  }

  /** @return the next queued item (a {@link Slice} or an {@link OwnerCommand}), or null. Owner only. */
  Object poll() {
    return queue.poll();
  }

  /** @return true when nothing is queued */
  boolean isEmpty() {
    return queue.isEmpty();
  }

  /** Stops the owner's intake: everything queued now or later completes with ENGINE_CLOSED or aborts. */
  void close() {
    closed = true;
    drainClosed();
  }

  private void drainClosed() {
    Object item;
    while ((item = queue.poll()) != null) {
      if (item instanceof Slice) {
        Slice slice = (Slice) item;
        slice.callback().onSliceDone(slice, SliceStatus.ENGINE_CLOSED, CLOSED);
      } else {
        ((OwnerCommand) item).abort();
      }
    }
  }
}
