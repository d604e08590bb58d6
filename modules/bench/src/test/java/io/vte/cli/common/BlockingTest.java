package io.vte.cli.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BlockingTest {

  @Test
  void anEventLoopIsRefusedAtOnceInsteadOfWaiting() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      CompletableFuture<Throwable> seen = new CompletableFuture<>();
      vertx.runOnContext(
          v -> {
            try {
              Blocking.await(
                  Promise.promise().future(), Duration.ofMinutes(1), "a never-ending step");
              seen.complete(null);
            } catch (Throwable t) {
              seen.complete(t);
            }
          });
      Throwable t = seen.get(10, TimeUnit.SECONDS);
      assertTrue(t instanceof VteException, String.valueOf(t));
      assertEquals(ErrorCode.INTERNAL, ((VteException) t).code());
      assertTrue(t.getMessage().contains("a never-ending step"), t.getMessage());
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aPlainThreadGetsTheResult() throws Exception {
    assertEquals(
        "done",
        Blocking.await(io.vertx.core.Future.succeededFuture("done"), Duration.ofSeconds(1), "x"));
  }
}
