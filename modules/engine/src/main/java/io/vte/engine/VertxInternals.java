package io.vte.engine;

import io.vertx.core.Closeable;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one place VTE reaches into Vert.x internals ({@code io.vertx.core.internal}), each use a
 * method on public types, so that a Vert.x upgrade that moves them breaks here only. Used by the
 * engine and the {@code vte-vertx} verticle; not for applications. Every context passed in must
 * come from Vert.x (all its contexts are internal ones).
 */
public final class VertxInternals {

  private VertxInternals() {}

  /**
   * @param vertx a Vert.x instance
   * @return a new event-loop context of its own, tied to no deployment
   */
  public static Context createEventLoopContext(Vertx vertx) {
    return ((VertxInternal) vertx).createEventLoopContext();
  }

  /**
   * @param vertx a Vert.x instance
   * @return a new worker context of its own, tied to no deployment
   */
  public static Context createWorkerContext(Vertx vertx) {
    return ((VertxInternal) vertx).createWorkerContext();
  }

  /**
   * Runs {@code hook} when {@code vertx} closes, before it undeploys verticles.
   *
   * @param vertx a Vert.x instance
   * @param hook the close hook
   */
  public static void addCloseHook(Vertx vertx, Closeable hook) {
    ((VertxInternal) vertx).addCloseHook(hook);
  }

  /**
   * @param vertx a Vert.x instance
   * @param hook a hook {@link #addCloseHook} added
   */
  public static void removeCloseHook(Vertx vertx, Closeable hook) {
    ((VertxInternal) vertx).removeCloseHook(hook);
  }

  /**
   * @param context a Vert.x context
   * @return true when the calling thread is the context's
   */
  public static boolean inThread(Context context) {
    return ((ContextInternal) context).inThread();
  }

  /**
   * Runs {@code handler} with {@code event} on the calling thread as a task of {@code context} (its
   * context set, its exception handler in place), allocating nothing.
   *
   * @param context a Vert.x context, whose thread the caller is on
   * @param event the event
   * @param handler its handler
   * @param <E> the event's type
   */
  public static <E> void dispatch(Context context, E event, Handler<E> handler) {
    ((ContextInternal) context).dispatch(event, handler);
  }

  /**
   * {@link #dispatch(Context, Object, Handler)} of a handler without event.
   *
   * @param context a Vert.x context, whose thread the caller is on
   * @param handler the handler
   */
  public static void dispatch(Context context, Handler<Void> handler) {
    ((ContextInternal) context).dispatch(handler);
  }

  /**
   * Queues {@code task} on the context's executor: no task object is made for it, unlike {@link
   * Context#runOnContext}.
   *
   * @param context a Vert.x context
   * @param task the task
   */
  public static void execute(Context context, Runnable task) {
    ((ContextInternal) context).executor().execute(task);
  }

  /**
   * Schedules {@code task} on the event loop of {@code context} itself (no Vert.x timer, no
   * allocation but the scheduled future).
   *
   * @param context an event-loop context
   * @param task the task
   * @param delay the delay
   * @param unit its unit
   * @return the scheduled task
   */
  public static ScheduledFuture<?> schedule(
      Context context, Runnable task, long delay, TimeUnit unit) {
    return ((ContextInternal) context).nettyEventLoop().schedule(task, delay, unit);
  }

  /**
   * @param context a Vert.x context
   * @param delayMillis the period
   * @param handler called with the timer's id at each period, on {@code context}
   * @return the timer's id ({@link Vertx#cancelTimer})
   */
  public static long setPeriodic(Context context, long delayMillis, Handler<Long> handler) {
    return ((ContextInternal) context).setPeriodic(delayMillis, handler);
  }

  /**
   * @param context a Vert.x context
   * @param <T> the result's type
   * @return a promise whose future's callbacks run on {@code context}
   */
  public static <T> Promise<T> promise(Context context) {
    return ((ContextInternal) context).promise();
  }
}
