package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;

import io.vertx.core.Vertx;
import io.vte.api.RailStatus;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * Two engines in one JVM over soft verbs for tests of reused records: {@link #a} (2 devices, on a
 * Vert.x of its own so that a test can run callers on its event loops) writes from {@link #local}
 * into {@link #remote} of {@link #b} through {@link #segment}; A's frames can be held back, and a
 * test can wait for the slices of an ended run to finish.
 */
public final class StallableEnginePair implements AutoCloseable {

  final EngineFixture fx = new EngineFixture();
  final Vertx vertxA = Vertx.vertx();
  final TransferEngineImpl a;
  final TransferEngineImpl b;
  final RegisteredBuffer local;
  final RegisteredBuffer remote;
  final SegmentHandle segment;

  /**
   * @param bytes the size of each engine's registered buffer
   */
  StallableEnginePair(long bytes) {
    a = fx.start(vertxA, fx.engineOptions(2, 1));
    b = fx.start(2, 1);
    local = fx.register(a, bytes, 1);
    remote = fx.register(b, bytes, 2);
    segment = Await.result(a.openSegment(b.serverName()), WAIT);
  }

  /** Holds every frame A sends back for {@code delay}, on both devices. */
  void stall(Duration delay) {
    fx.delayFrames(a, 0, delay);
    fx.delayFrames(a, 1, delay);
  }

  /** Lets A's frames go again. */
  void unstall() {
    fx.clearFrameFaults(a, 0);
    fx.clearFrameFaults(a, 1);
  }

  /**
   * Waits until no slice is in flight: a posted slice of a cancelled or timed-out run still writes
   * its destination when its held frame goes (as an RDMA WRITE posted before a cancel does), and a
   * later run may take a rail that holds nothing and finish first.
   *
   * @param ended what ended, for the failure message
   */
  void awaitStragglers(String ended) {
    Await.untilEquals(
        "the slices of " + ended + " run have ended",
        WAIT,
        0L,
        () -> a.diagnostics().rails().stream().mapToLong(RailStatus::backlogBytes).sum());
  }

  /**
   * Starts a thread that races the test's runs: in each of {@code rounds} rounds it meets the test
   * at {@code together}, runs {@code cancel} with the round's index at once (while the test starts
   * its run), and meets the test again after the run.
   */
  static Thread startCanceller(CyclicBarrier together, int rounds, IntConsumer cancel) {
    Thread t =
        new Thread(
            () -> {
              try {
                for (int i = 0; i < rounds; i++) {
                  together.await(30, TimeUnit.SECONDS);
                  cancel.accept(i);
                  together.await(30, TimeUnit.SECONDS);
                }
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            "canceller");
    t.start();
    return t;
  }

  @Override
  public void close() {
    fx.close();
  }
}
