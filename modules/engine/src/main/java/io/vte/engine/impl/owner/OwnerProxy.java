package io.vte.engine.impl.owner;

import io.vertx.core.AsyncResult;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The cross-thread side of an owner: a lock-free command queue (slices and {@link OwnerCommand}s)
 * and one wake-up per batch, guarded by a "wake pending" flag the owner clears at the start of each
 * cycle. Other threads call its typed methods (a slice, a QP or port event, a passive connect,
 * close); each runs on the owner's thread in queue order. After {@link #close()} anything offered
 * is completed at once ({@code ENGINE_CLOSED} / answered SHUTTING_DOWN).
 */
final class OwnerProxy {

  private static final VteException CLOSED =
      new VteException(ErrorCode.ENGINE_CLOSED, "the owner of this rail is closed");

  private final NicPath localNicPath;
  private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();

  /**
   * What the owner's own thread queued (a caller on the owner's event loop): no queue node and no
   * CAS per slice. Only that thread touches it; {@link #poll()} takes it after {@link #queue}, so
   * what other threads queued before it is run first.
   */
  private final ArrayDeque<Object> local = new ArrayDeque<>();

  private final AtomicBoolean wakePending = new AtomicBoolean();
  private volatile Runnable waker = () -> {};
  private volatile Thread thread;
  private volatile boolean bound;
  private volatile boolean closed;

  /** The owner runs its cycles back to back (it polls) rather than sleeping on a timer. */
  private volatile boolean polling;

  /**
   * @param localNicPath the owner's own NIC path, named in answers given once it is closed
   */
  OwnerProxy(NicPath localNicPath) {
    this.localNicPath = localNicPath;
  }

  /**
   * Sets what schedules the owner's next cycle (the verticle); called on the owner's event loop,
   * which this proxy remembers as the owner's thread.
   */
  void bind(Runnable waker) {
    this.waker = waker;
    this.thread = Thread.currentThread();
    this.bound = true;
  }

  /**
   * @return true when the calling thread is the owner's event loop: a slice queued from here is
   *     posted by the owner's next cycle on this thread, without waking another thread
   */
  boolean runsHere() {
    return thread == Thread.currentThread();
  }

  /**
   * @return true while the owner polls: a slice queued now is taken by its next cycle, with no
   *     wake-up
   */
  boolean polls() {
    return polling;
  }

  /** Records whether the owner polls or sleeps (owner's thread, only when it changes). */
  void setPolling(boolean polling) {
    this.polling = polling;
  }

  /**
   * @return true once a verticle drives the owner
   */
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
    enqueue(slice);
  }

  /** QP {@code qpNum} of the owner hit a fatal error: its endpoint retires. */
  void qpFatal(int qpNum) {
    execute(owner -> owner.onQpFatal(qpNum));
  }

  /**
   * Port {@code port} went down: the owner retires its endpoints and refuses work until it is back.
   */
  void portDown(int port) {
    execute(owner -> owner.onPortDown(port));
  }

  /** Port {@code port} is active again. */
  void portUp(int port) {
    execute(owner -> owner.onPortUp(port));
  }

  /** The device reported the owner's CQ in error (IBV_EVENT_CQ_ERR). */
  void cqError() {
    execute(owner -> owner.onCqError("is in error (device event)"));
  }

  /** The device died. */
  void deviceFatal() {
    execute(Owner::onDeviceFatal);
  }

  /**
   * A peer's connect request for an endpoint of this owner; {@code reply} gets the answer,
   * SHUTTING_DOWN when the owner is closed first.
   */
  void passiveConnect(ConnectRequest request, Promise<ConnectReply> reply) {
    execute(new PassiveConnect(request, reply, localNicPath));
  }

  /**
   * The answer (or failure) of an active handshake of {@code endpoint} sent under {@code
   * generation}.
   */
  void handshakeReply(Endpoint endpoint, long generation, AsyncResult<ConnectReply> reply) {
    execute(
        owner -> owner.connector().onReply(endpoint, generation, reply.result(), reply.cause()));
  }

  /**
   * The answer to the disconnect that fences {@code endpoint}'s WRITEs, or its failure.
   *
   * @param endpoint the endpoint whose fence was asked
   * @param answer the peer's reply, or why none came
   */
  void fenced(Endpoint endpoint, AsyncResult<ConnectReply> answer) {
    execute(owner -> owner.onFenced(endpoint, answer));
  }

  /**
   * Begins closing the owner; {@code done} completes once every work request is accounted for (at
   * once when the owner is closed first).
   */
  void beginClose(Promise<Void> done) {
    execute(new BeginClose(done));
  }

  /** Queues a one-off task for the owner's thread and wakes it (tests read owner state with it). */
  void execute(OwnerCommand command) {
    enqueue(command);
    wake();
  }

  private void enqueue(Object item) {
    if (runsHere()) {
      local.offer(item);
    } else {
      queue.offer(item);
    }
    if (closed) {
      drainClosed();
    }
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

  /**
   * @return the next queued item (a {@link Slice} or an {@link OwnerCommand}), or null. Owner only.
   */
  Object poll() {
    Object item = queue.poll();
    return item != null ? item : local.poll();
  }

  /**
   * Stops the owner's intake: everything queued now or later completes with ENGINE_CLOSED or
   * aborts.
   */
  void close() {
    closed = true;
    drainClosed();
  }

  private void drainClosed() {
    Object item;
    // the owner's own queue only on its thread: after the owner's verticle stopped, that thread
    // finds it closed at its next offer and drains it then
    while ((item = queue.poll()) != null || (runsHere() && (item = local.poll()) != null)) {
      if (item instanceof Slice) {
        Slice slice = (Slice) item;
        slice.callback().onSliceDone(slice, SliceStatus.ENGINE_CLOSED, CLOSED);
      } else {
        ((OwnerCommand) item).abort();
      }
    }
  }

  /** A passive connect; answered SHUTTING_DOWN when the owner is gone. */
  private record PassiveConnect(ConnectRequest request, Promise<ConnectReply> reply, NicPath local)
      implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.onPassiveConnect(request, reply);
    }

    @Override
    public void abort() {
      reply.tryComplete(
          ConnectMessages.reject(local, ConnectStatus.SHUTTING_DOWN, local + " is closed"));
    }
  }

  /** Close; completes at once when the owner is gone. */
  private record BeginClose(Promise<Void> done) implements OwnerCommand {
    @Override
    public void execute(Owner owner) {
      owner.beginClose(done);
    }

    @Override
    public void abort() {
      done.tryComplete();
    }
  }
}
