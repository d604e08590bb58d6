package io.vte.engine.impl.owner.runtime;

import io.vte.verbs.SpinBudget;

/**
 * Decides what an owner does after a duty cycle, as Aeron's idle strategies do: run the next cycle
 * at once, or sleep. An owner that found work runs again. One with work requests on the wire keeps
 * polling its CQ for at least {@link #MIN_SPIN_CYCLES} empty cycles. While at most {@link
 * #BUSY_POLL_MAX_BYTES} are on the wire and it holds a token of the {@link SpinBudget}, it polls
 * for {@code busyPollNanos} after it last found work: a completion that lands within that window is
 * reaped without a CQ notification and a wake-up of the event loop, which on a small machine cost
 * more than the round trip of a small request. It polls so with nothing on the wire too: a caller
 * that submits its next request soon after its last one completed (a thread awaiting each result in
 * turn) then finds the owner awake and needs no wake-up; such an owner gives its token up as soon
 * as another asks for one ({@link SpinBudget#isWanted()}). Between empty polls it yields its core
 * ({@link #yieldsBeforeNextCycle}), so polling takes no CPU a NIC thread is waiting for. Beyond the
 * window the owner arms its CQ and sleeps on a timer: {@code backoffMin} while work is in flight
 * (handshakes, retiring endpoints), else a back-off doubling up to {@code backoffMax}. Owner-thread
 * only; the clock is the caller's, so tests drive it directly.
 */
public final class OwnerIdleStrategy {

  /**
   * The owners' budget, for every engine of the JVM: half its processors' worth of owners poll at
   * most.
   */
  public static final SpinBudget OWNERS = SpinBudget.halfTheProcessors();

  /** Empty cycles an owner with work requests in flight always runs before it may sleep. */
  public static final int MIN_SPIN_CYCLES = 8;

  /**
   * Bytes on the wire above which an owner does not busy-poll: with that much in flight the machine
   * is busy moving bytes, the NIC threads need the CPU, and completions come often enough that a
   * sleeping owner is woken with several to reap.
   */
  public static final long BUSY_POLL_MAX_BYTES = 1024 * 1024;

  private final SpinBudget budget;
  private final long busyPollNanos;
  private final long backoffMinMs;
  private final long backoffMaxMs;
  private long backoffMs;
  private long lastWorkNanos;

  /** {@link #lastWorkNanos} is set: the owner found work at least once. */
  private boolean worked;

  private int emptyCycles;
  private boolean polling;

  /**
   * @param budget the tokens of the owners that may poll at once
   * @param busyPollNanos how long after its last work an owner keeps polling, 0 for {@link
   *     #MIN_SPIN_CYCLES} cycles only (with work requests on the wire)
   * @param backoffMinMs shortest sleep, at least 1
   * @param backoffMaxMs longest sleep, at least {@code backoffMinMs}
   */
  public OwnerIdleStrategy(
      SpinBudget budget, long busyPollNanos, long backoffMinMs, long backoffMaxMs) {
    this.budget = budget;
    this.busyPollNanos = busyPollNanos;
    this.backoffMinMs = backoffMinMs;
    this.backoffMaxMs = backoffMaxMs;
    this.backoffMs = backoffMinMs;
  }

  /**
   * @param work what the cycle did ({@code Owner.doWork()})
   * @param bytesOnWire bytes of the work requests posted and not yet completed
   * @param nowNanos the caller's clock
   * @return true when the next cycle should run at once; false when the owner should arm its CQ and
   *     sleep ({@link #sleepMillis})
   */
  public boolean runAgain(int work, long bytesOnWire, long nowNanos) {
    if (work > 0) {
      lastWorkNanos = nowNanos;
      worked = true;
      emptyCycles = 0;
      backoffMs = backoffMinMs;
      return true;
    }
    if (++emptyCycles < MIN_SPIN_CYCLES && bytesOnWire > 0) {
      return true;
    }
    if (!worked || bytesOnWire > BUSY_POLL_MAX_BYTES || nowNanos - lastWorkNanos >= busyPollNanos) {
      stopPolling();
      return false;
    }
    if (!polling) {
      polling = budget.tryAcquire();
    } else if (bytesOnWire <= 0 && budget.isWanted()) {
      // an owner with work on the wire asked for a token: polling for a submission comes second
      stopPolling();
    }
    return polling;
  }

  /**
   * The cycle an owner runs right after it armed its CQ (to reap what landed before the arming):
   * the owner runs again only when that cycle found work, and otherwise sleeps.
   *
   * @param work what the cycle did ({@code Owner.doWork()})
   * @param nowNanos the caller's clock
   * @return true when the next cycle should run at once
   */
  public boolean runAgainAfterArming(int work, long nowNanos) {
    return work > 0 && runAgain(work, 0, nowNanos);
  }

  /**
   * Whether the next cycle, which {@link #runAgain} just allowed, follows an empty one: the owner
   * is only polling, and gives its core first to any thread waiting for it (as Aeron's yielding
   * idle strategies do). On a small machine that thread is often a NIC thread moving the very bytes
   * the owner waits for; with none waiting, {@link Thread#yield()} returns at once.
   *
   * @return true after an empty cycle, false after one that did work
   */
  public boolean yieldsBeforeNextCycle() {
    return emptyCycles > 0;
  }

  /** Gives the poll token back, if held (the owner sleeps or stops). */
  public void stopPolling() {
    if (polling) {
      polling = false;
      budget.release();
    }
  }

  /**
   * The sleep of an owner that {@link #runAgain} let go; each call while idle doubles the next.
   *
   * @param workInFlight anything is in flight (work requests, handshakes, retiring endpoints)
   * @return milliseconds until its timer fires, unless a CQ notification or a command wakes it
   *     first
   */
  public long sleepMillis(boolean workInFlight) {
    stopPolling();
    emptyCycles = 0;
    if (workInFlight) {
      return backoffMinMs;
    }
    long delay = backoffMs;
    backoffMs = Math.min(backoffMs * 2, backoffMaxMs);
    return delay;
  }
}
