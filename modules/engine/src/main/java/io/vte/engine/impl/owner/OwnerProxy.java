package io.vte.engine.impl.owner;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.runtime.SliceQueue;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * The cross-thread side of an owner: a bounded ring of slices ({@link SliceQueue}), a queue of
 * {@link OwnerCommand}s, and one wake-up per batch, guarded by a "wake pending" flag the owner
 * clears at the start of each cycle. Other threads call its typed methods (a slice, a QP or port
 * event, a passive connect, close); each runs on the owner's thread, commands first, each queue in
 * its order. After {@link #close()} anything offered is completed at once ({@code ENGINE_CLOSED} /
 * answered SHUTTING_DOWN).
 *
 * <p>When the ring is full a slice is neither dropped nor waited for on an event loop: it is
 * offered again from a later task of the producer's own context (the producer slows down, the owner
 * drains meanwhile); a thread outside Vert.x waits its turn in short parks.
 */
final class OwnerProxy {

  private static final VteException CLOSED =
      new VteException(ErrorCode.ENGINE_CLOSED, "the owner of this rail is closed");

  /** A thread outside Vert.x waits this long before offering a slice to a full ring again. */
  private static final long FULL_PARK_NANOS = 10_000;

  private final NicPath localNicPath;
  private final SliceQueue slices;
  private final ConcurrentLinkedQueue<OwnerCommand> commands = new ConcurrentLinkedQueue<>();

  /**
   * Slices the owner's own thread queued (a caller on the owner's event loop): no CAS per slice and
   * no bound, since that thread is the one that drains. Only that thread touches it; {@link
   * #pollSlice()} takes it after {@link #slices}, so what other threads queued before it goes
   * first.
   */
  private final ArrayDeque<Slice> local = new ArrayDeque<>();

  private final AtomicBoolean wakePending = new AtomicBoolean();

  /** Slices offered again because the ring was full (rare; read by tests and diagnostics). */
  private final AtomicLong deferred = new AtomicLong();

  private volatile Runnable waker = () -> {};
  private volatile Thread thread;
  private volatile boolean bound;
  private volatile boolean closed;

  /** The owner runs its cycles back to back (it polls) rather than sleeping on a timer. */
  private volatile boolean polling;

  /**
   * @param localNicPath the owner's own NIC path, named in answers given once it is closed
   * @param sliceCapacity cells of the slice ring, a power of two ({@link SliceQueue#capacityFor})
   */
  OwnerProxy(NicPath localNicPath, int sliceCapacity) {
    this.localNicPath = localNicPath;
    this.slices = new SliceQueue(sliceCapacity);
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

  /**
   * Queues a slice without waking; the caller calls {@link #wake()} once for the batch. A slice
   * that finds the ring full is offered again later (see the class comment), with its own wake-up.
   */
  void offer(Slice slice) {
    if (runsHere()) {
      local.offer(slice);
    } else if (!slices.offer(slice)) {
      offerLater(slice);
    }
    if (closed) {
      drainClosed();
    }
  }

  private void offerLater(Slice slice) {
    deferred.incrementAndGet();
    Context context = Vertx.currentContext();
    if (context != null) {
      context.runOnContext(v -> submit(slice));
      return;
    }
    while (!slices.offer(slice)) {
      if (closed) {
        slice.callback().onSliceDone(slice, SliceStatus.ENGINE_CLOSED, CLOSED);
        return;
      }
      wake();
      LockSupport.parkNanos(FULL_PARK_NANOS);
    }
  }

  /**
   * @return slices offered again because the ring was full
   */
  long deferredSlices() {
    return deferred.get();
  }

  /** QP {@code qpNum} of the owner hit a fatal error: its endpoint retires. */
  void qpFatal(int qpNum) {
    execute(new OwnerCommand.QpFatal(qpNum));
  }

  /**
   * Port {@code port} went down: the owner retires its endpoints and refuses work until it is back.
   */
  void portDown(int port) {
    execute(new OwnerCommand.PortChange(port, false));
  }

  /** Port {@code port} is active again. */
  void portUp(int port) {
    execute(new OwnerCommand.PortChange(port, true));
  }

  /**
   * The peer says its device {@code path} is down: the owner retires its endpoint to it, so that
   * its slices move to another rail now instead of at the QP's timeout.
   */
  void peerDeviceDown(NicPath path, VteException cause) {
    execute(new OwnerCommand.PeerDeviceDown(path, cause));
  }

  /** The device reported the owner's CQ in error (IBV_EVENT_CQ_ERR). */
  void cqError() {
    execute(new OwnerCommand.CqError());
  }

  /** The device died. */
  void deviceFatal() {
    execute(new OwnerCommand.DeviceFatal());
  }

  /**
   * A peer's connect request for an endpoint of this owner; {@code reply} gets the answer,
   * SHUTTING_DOWN when the owner is closed first.
   */
  void passiveConnect(ConnectRequest request, Promise<ConnectReply> reply) {
    execute(new OwnerCommand.PassiveConnect(request, reply, localNicPath));
  }

  /**
   * The answer (or failure) of an active handshake of {@code endpoint} sent under {@code
   * generation}.
   */
  void handshakeReply(Endpoint endpoint, long generation, AsyncResult<ConnectReply> reply) {
    execute(new OwnerCommand.HandshakeReply(endpoint, generation, reply));
  }

  /**
   * The answer to the disconnect that fences {@code endpoint}'s WRITEs, or its failure.
   *
   * @param endpoint the endpoint whose fence was asked
   * @param answer the peer's reply, or why none came
   */
  void fenced(Endpoint endpoint, AsyncResult<ConnectReply> answer) {
    execute(new OwnerCommand.Fenced(endpoint, answer));
  }

  /**
   * Begins closing the owner; {@code done} completes once every work request is accounted for (at
   * once when the owner is closed first).
   */
  void beginClose(Promise<Void> done) {
    execute(new OwnerCommand.BeginClose(done));
  }

  /** The answer to a probe of the peer of {@code endpoint} ({@link PeerProbes}). */
  void probeAnswer(Endpoint endpoint, AsyncResult<ConnectReply> answer) {
    execute(new OwnerCommand.ProbeAnswer(endpoint, answer));
  }

  /** The peer process behind {@code server} is gone: the owner retires its endpoints to it. */
  void peerGone(String server, VteException cause) {
    execute(new OwnerCommand.PeerGone(server, cause));
  }

  /** Queues a one-off task for the owner's thread and wakes it (tests read owner state with it). */
  void execute(Consumer<Owner> task) {
    execute(new OwnerCommand.Task(task));
  }

  /** Queues a command and wakes the owner. */
  void execute(OwnerCommand command) {
    commands.offer(command);
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

  /**
   * @return the next queued command, or null. Owner only.
   */
  OwnerCommand pollCommand() {
    return commands.poll();
  }

  /**
   * @return the next queued slice (other threads' first, then the owner's own), or null. Owner
   *     only.
   */
  Slice pollSlice() {
    Slice slice = slices.poll();
    return slice != null ? slice : local.poll();
  }

  /**
   * Stops the owner's intake: everything queued now or later completes with ENGINE_CLOSED or
   * aborts. Called on the owner's thread once the owner runs no more cycles (the ring then has no
   * other consumer).
   */
  void close() {
    closed = true;
    drainClosed();
  }

  /**
   * Ends what is queued. Serialized: producers that find the proxy closed drain it themselves,
   * after the owner stopped taking from it.
   */
  private synchronized void drainClosed() {
    OwnerCommand command;
    while ((command = commands.poll()) != null) {
      command.abort();
    }
    Slice slice;
    // the owner's own queue only on its thread: after the owner's verticle stopped, that thread
    // finds it closed at its next offer and drains it then
    while ((slice = slices.poll()) != null || (runsHere() && (slice = local.poll()) != null)) {
      slice.callback().onSliceDone(slice, SliceStatus.ENGINE_CLOSED, CLOSED);
    }
  }
}
