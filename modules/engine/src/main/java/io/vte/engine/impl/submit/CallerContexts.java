package io.vte.engine.impl.submit;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vte.engine.VertxInternals;

/**
 * The context a batch's result completes on: the submitter's own when it runs on a Vert.x thread,
 * else one event-loop context made once for every caller outside Vert.x. Vert.x's {@code
 * getOrCreateContext} makes a new context (its maps, task queue and executor, about 250 B) at every
 * call from such a thread, and a caller that awaits each result on its own thread submits often.
 * Thread-safe.
 */
final class CallerContexts {

  private final Vertx vertx;
  private final Context outsideVertx;

  /**
   * @param vertx the engine's Vert.x instance
   */
  CallerContexts(Vertx vertx) {
    this.vertx = vertx;
    this.outsideVertx = VertxInternals.createEventLoopContext(vertx);
  }

  /**
   * @return the calling thread's context, or the shared one when it runs outside Vert.x (no context
   *     of any instance)
   */
  Context current() {
    return Vertx.currentContext() == null ? outsideVertx : vertx.getOrCreateContext();
  }

  /**
   * @param context a context {@link #current()} gave
   * @return true when it is the one shared by callers outside Vert.x
   */
  boolean isOutsideVertx(Context context) {
    return context == outsideVertx;
  }
}
