package io.vte.engine.impl.owner;

import io.vertx.core.Context;
import io.vte.verbs.AsyncEventHandler;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.QueueLimits;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.WorkRequestBatch;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A verbs device whose QP verbs wait, as on RoCE, where the move to RTR resolves the peer's
 * neighbour entry (about a second when the entry is missing) and create and destroy are system
 * calls: every move to RTR blocks for a fixed stall, and the next call of a chosen verb can be held
 * at a barrier ({@link #hold}) until the test releases it. Everything else is the wrapped device's.
 * Counts the moves to RTR, and the verbs called on an event-loop thread.
 */
final class StallingVerbs implements VerbsContext {

  /** A QP verb that may wait on the kernel. */
  enum Verb {
    CREATE,
    RTR,
    DESTROY
  }

  /** How long a held verb waits at most for its release: a test that fails never hangs. */
  private static final Duration HOLD_LIMIT = Duration.ofMinutes(3);

  private final VerbsContext device;
  private final long stallNanos;
  private final Map<Verb, Gate> holds = new ConcurrentHashMap<>();
  final AtomicInteger rtrMoves = new AtomicInteger();
  final AtomicInteger onEventLoop = new AtomicInteger();

  /**
   * @param device the device to wrap
   * @param stall how long every move to RTR blocks (zero for none)
   */
  StallingVerbs(VerbsContext device, Duration stall) {
    this.device = device;
    this.stallNanos = stall.toNanos();
  }

  /**
   * @param verb a verb
   * @return a barrier the next call of {@code verb} on this device (any QP) waits at until {@link
   *     Gate#release()}
   */
  Gate hold(Verb verb) {
    Gate gate = new Gate(verb);
    holds.put(verb, gate);
    return gate;
  }

  /** A barrier one verb call waits at: the test learns when and where it arrived. */
  static final class Gate {
    private final Verb verb;
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile String thread;

    private Gate(Verb verb) {
      this.verb = verb;
    }

    private void pass() {
      thread = Thread.currentThread().getName();
      arrived.countDown();
      try {
        released.await(HOLD_LIMIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /**
     * @return true once the held verb was called (it waits at the barrier)
     */
    boolean arrived() {
      return arrived.getCount() == 0;
    }

    /**
     * @return the name of the thread that called the held verb, null before
     */
    String thread() {
      return thread;
    }

    /** Lets the held verb go on (and any later one: the barrier opens for good). */
    void release() {
      released.countDown();
    }

    @Override
    public String toString() {
      return verb + (arrived() ? " held on " + thread : " not called yet");
    }
  }

  @Override
  public String deviceName() {
    return device.deviceName();
  }

  @Override
  public String providerName() {
    return device.providerName();
  }

  @Override
  public int portCount() {
    return device.portCount();
  }

  @Override
  public PortAttributes queryPort(int port) {
    return device.queryPort(port);
  }

  @Override
  public QueueLimits queueLimits() {
    return device.queueLimits();
  }

  @Override
  public ProtectionDomain allocPd() {
    return new Pd(device.allocPd());
  }

  @Override
  public CompletionQueue createCq(int capacity) {
    return device.createCq(capacity);
  }

  @Override
  public void setAsyncEventHandler(AsyncEventHandler handler) {
    device.setAsyncEventHandler(handler);
  }

  @Override
  public void close() {
    device.close();
  }

  /** Counts a verb called on an event loop, and holds it there if its barrier is set. */
  private void enter(Verb verb) {
    if (Context.isOnEventLoopThread()) {
      onEventLoop.incrementAndGet();
    }
    Gate gate = holds.remove(verb);
    if (gate != null) {
      gate.pass();
    }
  }

  /** Blocks the calling thread for the stall, whatever interrupts it. */
  private void stall() {
    rtrMoves.incrementAndGet();
    long end = System.nanoTime() + stallNanos;
    for (long left = stallNanos; left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  private final class Pd implements ProtectionDomain {
    private final ProtectionDomain pd;

    Pd(ProtectionDomain pd) {
      this.pd = pd;
    }

    @Override
    public MemoryRegion registerMemory(ByteBuffer buffer, int accessFlags) {
      return pd.registerMemory(buffer, accessFlags);
    }

    @Override
    public MemoryRegion registerMemory(long address, long length, int accessFlags) {
      return pd.registerMemory(address, length, accessFlags);
    }

    @Override
    public QueuePair createQp(QpInitAttributes attributes) {
      enter(Verb.CREATE);
      return new Qp(pd.createQp(attributes));
    }

    @Override
    public void close() {
      pd.close();
    }
  }

  private final class Qp implements QueuePair {
    private final QueuePair qp;

    Qp(QueuePair qp) {
      this.qp = qp;
    }

    @Override
    public int qpNum() {
      return qp.qpNum();
    }

    @Override
    public QpState state() {
      return qp.state();
    }

    @Override
    public void toInit(int port, int accessFlags) {
      qp.toInit(port, accessFlags);
    }

    @Override
    public void toRtr(QpPeer peer, int pathMtu) {
      enter(Verb.RTR);
      stall();
      qp.toRtr(peer, pathMtu);
    }

    @Override
    public void toRts(RtsAttributes attributes) {
      qp.toRts(attributes);
    }

    @Override
    public void toError() {
      qp.toError();
    }

    @Override
    public void toReset() {
      qp.toReset();
    }

    @Override
    public int postSend(WorkRequestBatch batch) {
      return qp.postSend(batch);
    }

    @Override
    public int postRecv(WorkRequestBatch batch) {
      return qp.postRecv(batch);
    }

    @Override
    public void close() {
      enter(Verb.DESTROY);
      qp.close();
    }
  }
}
