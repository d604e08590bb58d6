package io.vte.engine.impl.submit;

import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;

/**
 * The context a batch's result completes on: the submitter's own when it runs on a Vert.x thread,
 * else one event-loop context made once for every caller outside Vert.x. Vert.x's {@code
 * getOrCreateContext} makes a new context (its maps, task queue and executor, about 250 B) at every
 * call from such a thread, and a caller that awaits each result on its own thread submits often.
 * Thread-safe.
 */
final class CallerContexts {

  private final Vertx vertx;
  private final ContextInternal outsideVertx;

  /**
   * @param vertx the engine's Vert.x instance
   */
  CallerContexts(Vertx vertx) {
    this.vertx = vertx;
    this.outsideVertx = ((VertxInternal) vertx).createEventLoopContext();
  }

  /**
   * @return the calling thread's context, or the shared one when it runs outside Vert.x (no context
   *     of any instance)
   */
  ContextInternal current() {
    return Vertx.currentContext() == null
        ? outsideVertx
        : (ContextInternal) vertx.getOrCreateContext();
  }

  /**
   * @param context a context {@link #current()} gave
   * @return true when it is the one shared by callers outside Vert.x
   */
  boolean isOutsideVertx(ContextInternal context) {
    return context == outsideVertx;
  }
}
