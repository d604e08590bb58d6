package io.vte.testkit;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.Supplier;

/**
 * Runs a chain of Vert.x calls on one event-loop context, for tests that drive Vert.x clients from
 * the JUnit thread.
 *
 * <p>A chain such as {@code http.request(..).compose(req -> req.send()).compose(resp ->
 * resp.body())} started from a thread that is not Vert.x's runs each continuation on whichever
 * thread completes or meets the future first. When the response has already ended by the time the
 * JUnit thread calls {@code body()}, Vert.x 5.0.7 drops the end signal and the body future never
 * completes (eclipse-vertx/vert.x#6038, fixed after 5.0.7): about one request in a thousand hung
 * here, more under load. Started on an event loop, every continuation runs on that loop, so {@code
 * body()} is always called before the response can end.
 */
public final class OnEventLoop {

  private OnEventLoop() {}

  /**
   * @param vertx the instance whose event loop runs the chain
   * @param chain starts the calls; it runs on an event-loop context of {@code vertx}
   * @param <T> the result type
   * @return the chain's outcome (a failure when {@code chain} throws)
   */
  public static <T> Future<T> call(Vertx vertx, Supplier<Future<T>> chain) {
    Context context = vertx.getOrCreateContext();
    Promise<T> outcome = Promise.promise();
    context.runOnContext(
        v -> {
          try {
            chain.get().onComplete(outcome);
          } catch (RuntimeException e) {
            outcome.fail(e);
          }
        });
    return outcome.future();
  }
}
