package io.vte.verbs.soft.impl.wire;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Brackets the NIC thread's accesses to memory so that another thread can stop them: {@link
 * #acquire()} and {@link #release()} around each access (one non-blocking socket call or one copy),
 * {@link #close()} refuses new accesses and returns once those in progress have ended. A registered
 * region closes its gate at deregistration; a QP closes its inbound gate when it leaves RTR/RTS, so
 * no request of its peer lands after {@code modify_qp(ERR)} returns.
 */
public final class AccessGate {

  private static final int CLOSED = Integer.MIN_VALUE;
  private static final int USERS = Integer.MAX_VALUE;
  private static final int SPINS_BEFORE_PARK = 100;
  private static final long PARK_NANOS = 10_000;

  /** {@link #CLOSED} bit plus the number of accesses in progress. */
  private final AtomicInteger state;

  /**
   * @param open whether accesses are let through from the start
   */
  public AccessGate(boolean open) {
    state = new AtomicInteger(open ? 0 : CLOSED);
  }

  /**
   * @return true while new accesses are let through
   */
  public boolean isOpen() {
    return state.get() >= 0;
  }

  /**
   * Starts one access; pairs with {@link #release()} when it returned true.
   *
   * @return false when the gate is closed: the memory must not be touched
   */
  public boolean acquire() {
    if (state.getAndIncrement() < 0) {
      state.decrementAndGet();
      return false;
    }
    return true;
  }

  /** Ends the access started by a successful {@link #acquire()}. */
  public void release() {
    state.decrementAndGet();
  }

  /**
   * Refuses new accesses and waits for those in progress (each a single non-blocking socket call or
   * copy) to end.
   *
   * @return true when this call closed the gate, false when it was closed already
   */
  public boolean close() {
    boolean first = state.getAndUpdate(s -> s | CLOSED) >= 0;
    for (int spins = 0; (state.get() & USERS) != 0; spins++) {
      if (spins < SPINS_BEFORE_PARK) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(PARK_NANOS);
      }
    }
    return first;
  }

  /** Lets accesses through again (a QP connected anew). */
  public void open() {
    state.getAndUpdate(s -> s & USERS);
  }
}
