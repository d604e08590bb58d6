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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A verbs device whose move of a QP to RTR blocks for a while, as on RoCE, where it resolves the
 * peer's neighbour entry (about a second when the entry is missing). Everything else is the wrapped
 * device's. Counts the moves, and those made on an event-loop thread.
 */
final class StallingVerbs implements VerbsContext {

  private final VerbsContext device;
  private final long stallNanos;
  final AtomicInteger rtrMoves = new AtomicInteger();
  final AtomicInteger onEventLoop = new AtomicInteger();

  StallingVerbs(VerbsContext device, Duration stall) {
    this.device = device;
    this.stallNanos = stall.toNanos();
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

  /** Blocks the calling thread for the stall, whatever interrupts it. */
  private void stall() {
    rtrMoves.incrementAndGet();
    if (Context.isOnEventLoopThread()) {
      onEventLoop.incrementAndGet();
    }
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
      qp.close();
    }
  }
}
