package io.vte.engine.impl.submit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Callers outside Vert.x share one context made once, whatever thread they run on; a caller on an
 * event loop gets its own context.
 */
@ExtendWith(BlockedThreadGuard.class)
class CallerContextsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void tearDown() {
    Await.result(vertx.close(), WAIT);
  }

  @Test
  void threadsOutsideVertxShareOneContextAndAnEventLoopKeepsItsOwn() throws Exception {
    CallerContexts callers = new CallerContexts(vertx);
    Context fromMain = callers.current();
    assertSame(fromMain, callers.current(), "no new context at every call from the same thread");
    Context fromOther =
        CompletableFuture.supplyAsync(callers::current).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertSame(fromMain, fromOther, "another thread outside Vert.x gets the same one");
    assertTrue(fromMain.isEventLoopContext(), "results complete on an event loop");

    Context loop = vertx.getOrCreateContext();
    Promise<Context> onLoop = Promise.promise();
    loop.runOnContext(v -> onLoop.complete(callers.current()));
    Context seen = Await.result(onLoop.future(), WAIT);
    assertSame(loop, seen, "a caller on an event loop completes on its own context");
    assertNotSame(fromMain, seen);
    assertTrue(callers.isOutsideVertx(fromMain), "the shared context is known as such");
    assertFalse(callers.isOutsideVertx(seen), "an event loop's own context is not");
  }
}
