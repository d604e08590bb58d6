package io.vte.testkit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BlockedThreadGuard.class)
class BlockedThreadGuardTest {

  @Test
  void seesABlockedEventLoop() {
    Vertx vertx =
        Vertx.vertx(
            new VertxOptions()
                .setBlockedThreadCheckInterval(20)
                .setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
                .setMaxEventLoopExecuteTime(50)
                .setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS));
    AtomicBoolean release = new AtomicBoolean();
    List<String> seen = new ArrayList<>();
    try {
      // Deliberately hog the event loop until the checker has reported it (at most 5 s).
      vertx.runOnContext(
          v -> {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!release.get() && System.nanoTime() < end) {
              Thread.onSpinWait();
            }
          });
      Await.until(
          "a blocked-thread warning",
          Duration.ofSeconds(10),
          () -> seen.addAll(BlockedThreadGuard.drain()));
    } finally {
      release.set(true);
      Await.result(vertx.close(), Duration.ofSeconds(10));
      BlockedThreadGuard.drain();
    }
    assertTrue(seen.get(0).contains("blocked"), "warning text: " + seen.get(0));
  }
}
