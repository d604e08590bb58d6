package io.vte.engine.impl.submit;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vte.engine.VertxInternals;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Expires the batches whose deadline passed: one periodic timer per engine, running only while
 * batches are in flight, instead of a Vert.x timer set and cancelled for every batch (a timer
 * object, a scheduled task and two map updates per request). A deadline fires at most {@link
 * #TICK_MS} late. The timer runs on a context of its own, so it outlives the verticles that submit.
 * Thread-safe.
 */
final class DeadlineSweeper {

  /** The sweep period: how late a deadline may be noticed. */
  static final long TICK_MS = 5;

  private final Vertx vertx;
  private final Context context;
  private final InFlightBatches inFlight;
  private final AtomicBoolean armed = new AtomicBoolean();
  private volatile boolean closed;
  private volatile long timerId = -1;

  /**
   * @param vertx for the periodic timer
   * @param inFlight the batches in flight (added before {@link #batchAdded()})
   */
  DeadlineSweeper(Vertx vertx, InFlightBatches inFlight) {
    this.vertx = vertx;
    this.context = VertxInternals.createEventLoopContext(vertx);
    this.inFlight = inFlight;
  }

  /** A batch was added to the in-flight set: sweep until the set is empty again. */
  void batchAdded() {
    if (!armed.get() && !closed && armed.compareAndSet(false, true)) {
      timerId = VertxInternals.setPeriodic(context, TICK_MS, this::sweep);
    }
  }

  /**
   * @return true while the periodic sweep runs
   */
  boolean isArmed() {
    return armed.get();
  }

  /** Stops sweeping for good. */
  void close() {
    closed = true;
    long id = timerId;
    if (id >= 0) {
      vertx.cancelTimer(id);
    }
  }

  private void sweep(long id) {
    long now = System.nanoTime();
    inFlight.forEach(b -> b.expireIfDue(now));
    if (inFlight.isEmpty() || closed) {
      vertx.cancelTimer(id);
      armed.set(false);
      // A batch added after the emptiness check saw the timer still armed: arm it again.
      if (!inFlight.isEmpty()) {
        batchAdded();
      }
    }
  }
}
