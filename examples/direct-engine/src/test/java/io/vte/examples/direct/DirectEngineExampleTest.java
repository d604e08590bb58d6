package io.vte.examples.direct;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs the direct-engine example: the block arrives, reads back equal, the notification lands. */
@ExtendWith(BlockedThreadGuard.class)
class DirectEngineExampleTest {

  @Test
  void writesReadsBackNotifiesAndClosesLeavingNothing() {
    once(); // warm up: classes and pools opened once
    ResourceSnapshot before = ResourceSnapshot.take();
    String report = once();
    assertTrue(
        report.startsWith("wrote 1048576 bytes to 127.0.0.1:")
            && report.contains("read them back equal")
            && report.contains("notified 'block.ready': block of 1048576"),
        report);
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(30));
  }

  @Test
  void aBadSizeIsRefusedByName() {
    Vertx a = Vertx.vertx();
    Vertx b = Vertx.vertx();
    try {
      Throwable e = Await.failure(DirectEngineMain.run(a, b, 0), Duration.ofMinutes(1));
      assertTrue(e.getMessage().contains("bytes 0"), e.toString());
    } finally {
      Await.result(a.close(), Duration.ofMinutes(1));
      Await.result(b.close(), Duration.ofMinutes(1));
    }
  }

  private static String once() {
    Vertx sender = Vertx.vertx();
    Vertx receiver = Vertx.vertx();
    try {
      return Await.result(DirectEngineMain.run(sender, receiver, 1 << 20), Duration.ofMinutes(2));
    } finally {
      Await.result(sender.close(), Duration.ofMinutes(1));
      Await.result(receiver.close(), Duration.ofMinutes(1));
    }
  }
}
