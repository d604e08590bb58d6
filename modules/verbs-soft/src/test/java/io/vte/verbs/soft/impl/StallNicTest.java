package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Stalling a NIC ({@link DeviceFaults#stallNic()}) never blocks its caller: from an event loop it
 * returns a stage at once, even while the NIC thread is too busy to be held yet, and the stage
 * completes once the thread is held.
 */
@ExtendWith(BlockedThreadGuard.class)
class StallNicTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  private final Vertx vertx = Vertx.vertx();
  private final SoftVerbsProvider provider =
      (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig());

  @AfterEach
  void close() {
    provider.close();
    vertx.close().await();
  }

  @Test
  void anEventLoopStallsABusyNicWithoutWaitingAndTheStageCompletesOnceItIsHeld() throws Exception {
    SoftDevice device = (SoftDevice) provider.open("soft0");
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch busyStarted = new CountDownLatch(1);
    device
        .nic()
        .execute(
            () -> {
              busyStarted.countDown();
              try {
                busy.await(); // until the test lets it go: the NIC cannot be held before
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    assertTrue(busyStarted.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
    CompletableFuture<List<CompletionStage<Void>>> onLoop = new CompletableFuture<>();
    vertx.runOnContext(
        v -> onLoop.complete(List.of(device.faults().stallNic(), device.faults().stallNic())));
    List<CompletionStage<Void>> stages = onLoop.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    CompletableFuture<Void> stalled = stages.get(0).toCompletableFuture();
    assertFalse(stalled.isDone(), "held while the NIC thread was busy elsewhere");

    busy.countDown();
    stalled.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    CountDownLatch ranAfter = new CountDownLatch(1);
    device.nic().execute(ranAfter::countDown);
    assertFalse(ranAfter.await(200, TimeUnit.MILLISECONDS), "the held NIC thread ran a command");
    device.faults().releaseNic();
    assertTrue(ranAfter.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "released");
  }
}
