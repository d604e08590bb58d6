package io.vte.engine.impl.owner;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.internal.ContextInternal;
import io.vte.engine.impl.owner.runtime.OwnerIdleStrategy;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Schedules one {@link Owner}'s duty cycle on the event-loop context it is deployed on, for life.
 * Never blocks: while there is work, or work requests on the wire within the busy-poll window
 * ({@link OwnerIdleStrategy}), it re-runs itself with {@code runOnContext} hops (other events
 * interleave); otherwise it arms the CQ, polls once more, and sleeps on a timer with growing
 * back-off, woken early by a CQ notification or a new command (both go through the proxy's single
 * wake flag).
 */
final class OwnerVerticle extends VerticleBase {

  private final Owner owner;
  private final OwnerProxy proxy;

  /** What the proxy was last told ({@link OwnerProxy#setPolling}). */
  private boolean polling;

  private final OwnerIdleStrategy idle;
  private final Handler<Void> cycle = v -> cycle();
  // What runOnContext(cycle) does, made once: a hop to the next cycle allocates nothing.
  private final Runnable cycleTask = () -> ((ContextInternal) context).dispatch(cycle);
  private final Handler<Void> timerFired = v -> onTimer();
  // The sleep timer is a task on the event loop's own scheduler: a Vert.x timer would allocate a
  // handler, a flag, two map entries and boxed ids at every sleep, and owners sleep often.
  private final Runnable timerTask = () -> ((ContextInternal) context).dispatch(timerFired);
  private ScheduledFuture<?> timer;
  private boolean stopped;

  OwnerVerticle(Owner owner, OwnerConfig config) {
    this.owner = owner;
    this.proxy = owner.proxy();
    this.idle =
        new OwnerIdleStrategy(
            OwnerIdleStrategy.OWNERS,
            config.busyPoll().toNanos(),
            config.idleBackoffMin().toMillis(),
            config.idleBackoffMax().toMillis());
  }

  @Override
  public Future<?> start() {
    proxy.bind(this::schedule);
    proxy.clearWake();
    proxy.wake();
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    stopped = true;
    cancelTimer();
    idle.stopPolling();
    setPolling(false);
    // Normally the owner was closed and drained first; when Vert.x itself closes, it was not.
    proxy.close();
    owner.abandon();
    return Future.succeededFuture();
  }

  private void cycle() {
    if (stopped) {
      return;
    }
    proxy.clearWake();
    cancelTimer();
    if (idle.runAgain(owner.doWork(), owner.bytesOutstanding(), System.nanoTime())) {
      setPolling(true);
      if (idle.yieldsBeforeNextCycle()) {
        // sched_yield: not a wait, it returns at once unless a thread is ready for this core
        Thread.yield();
      }
      hop();
      return;
    }
    owner.armCompletionNotification();
    if (idle.runAgainAfterArming(owner.doWork(), System.nanoTime())) {
      hop();
      return;
    }
    setPolling(false);
    timer =
        ((ContextInternal) context)
            .nettyEventLoop()
            .schedule(timerTask, idle.sleepMillis(owner.hasWorkInFlight()), TimeUnit.MILLISECONDS);
  }

  /** Tells the proxy, when it changes, whether the owner runs cycles back to back or sleeps. */
  private void setPolling(boolean now) {
    if (polling != now) {
      polling = now;
      proxy.setPolling(now);
    }
  }

  private void hop() {
    if (proxy.claimWake()) {
      schedule();
    }
  }

  private void schedule() {
    ((ContextInternal) context).executor().execute(cycleTask);
  }

  private void onTimer() {
    timer = null;
    if (proxy.claimWake()) {
      cycle();
    }
  }

  private void cancelTimer() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      timer = null;
      t.cancel(false);
    }
  }
}
