package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.WrOpcode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * QP create, modify and destroy run off the owners' event loops: with a device whose move to RTR
 * blocks for a second (RoCE resolving a neighbour), an owner with slices in flight on one endpoint
 * goes on polling its CQ while it reconnects to eight peer devices, three times over, on both the
 * active and the passive side. The gap bound is {@link OwnerSoftVerbsTest#assertPollGapBounded}'s.
 */
@ExtendWith(BlockedThreadGuard.class)
class QpSetupOffLoopTest {

  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Duration STALL = Duration.ofSeconds(1);
  private static final int PEERS = 8;
  private static final int ROUNDS = 3;
  private static final int SLICE = 4096;

  private final List<StallingVerbs> devices = new ArrayList<>();
  private Vertx vertx;
  private SoftNode a;
  private SoftNode b;
  private JitterProbe machine;

  @AfterEach
  void tearDown() {
    if (machine != null) {
      machine.close();
    }
    for (SoftNode n : new SoftNode[] {a, b}) {
      if (n != null) {
        Await.result(n.close(), WAIT);
      }
    }
    if (vertx != null) {
      Await.result(vertx.close(), WAIT);
    }
  }

  private StallingVerbs stalling(io.vte.verbs.VerbsContext device) {
    StallingVerbs s = new StallingVerbs(device, STALL);
    synchronized (devices) {
      devices.add(s);
    }
    return s;
  }

  @Test
  void ownerKeepsPollingWhileQpsMoveToRtrInAReconnectStorm() {
    vertx =
        Vertx.vertx(
            new VertxOptions()
                .setWarningExceptionTime(1)
                .setWarningExceptionTimeUnit(TimeUnit.SECONDS));
    // a retires its storm endpoints once idle, so each round reconnects them; b keeps its passive
    // ends (its steady one never posts, so it would look idle) until a newer connection replaces
    // them.
    OwnerConfig active =
        OwnerConfig.from(
            OwnerTestConfig.options()
                .setHandshakeDeadline(Duration.ofSeconds(60))
                .setIdleEndpoint(Duration.ofMillis(400)));
    OwnerConfig passive =
        OwnerConfig.from(OwnerTestConfig.options().setHandshakeDeadline(Duration.ofSeconds(60)));
    a = SoftNode.start(vertx, "a", 1, active, 1 << 20, this::stalling);
    b = SoftNode.start(vertx, "b", PEERS + 1, passive, 1 << 20, this::stalling);

    // Steady traffic on a0 -> b0 keeps work requests in flight, so every poll gap is measured.
    Pump pump = new Pump(a, b, 8);
    machine = new JitterProbe();
    pump.start();
    Await.until("the steady endpoint carries slices", WAIT, () -> pump.done.get() > 100);

    for (int round = 0; round < ROUNDS; round++) {
      Transfer storm = new Transfer(a, b);
      storm.retry = false;
      List<Slice> slices = new ArrayList<>();
      for (int peer = 1; peer <= PEERS; peer++) {
        slices.add(
            a.slice(
                storm, peer, WrOpcode.RDMA_WRITE, peer * SLICE, b, peer * SLICE, SLICE, 0, peer));
      }
      storm.submitAll(slices);
      int r = round;
      Await.until(
          "round " + r + " connected to every peer device (" + storm.finished() + ")",
          WAIT,
          () -> storm.finished() == PEERS);
      assertEquals(PEERS, storm.ok.get(), "round " + round + ": " + storm.failures);
      // The storm's endpoints go idle and retire; the steady one stays busy.
      Await.until(
          "round " + r + "'s endpoints retired while idle", WAIT, () -> a.endpointsAlive() == 1);
    }
    pump.stop();
    Await.until("the pump drained", WAIT, () -> pump.inFlight.get() == 0);
    machine.close();
    assertEquals(List.of(), List.copyOf(pump.failures), "the steady endpoint never failed");

    int moves = devices.stream().mapToInt(d -> d.rtrMoves.get()).sum();
    assertTrue(
        moves >= 2 * PEERS * ROUNDS, "each reconnect moved QPs to RTR on both sides: " + moves);
    assertEquals(
        0,
        devices.stream().mapToInt(d -> d.onEventLoop.get()).sum(),
        "no QP moved to RTR on an event loop");
    OwnerMetrics metrics = a.contexts.get(0).ownerMetrics(0);
    Histogram gaps = metrics.pollGapHistogram();
    System.out.printf(
        "%d RTR moves blocking %d ms each in %d reconnect rounds: CQ poll gap max %.3f ms p99.9 %.3f"
            + " ms p50 %.3f ms (%d gaps); machine stall max %.3f ms%n",
        moves,
        STALL.toMillis(),
        ROUNDS,
        metrics.maxPollGapNanos() / 1e6,
        gaps.getValueAtPercentile(99.9) / 1e6,
        gaps.getValueAtPercentile(50) / 1e6,
        gaps.getTotalCount(),
        machine.maxLateNanos() / 1e6);
    assertTrue(gaps.getTotalCount() > 1000, "poll gaps measured: " + gaps.getTotalCount());
    OwnerSoftVerbsTest.assertPollGapBounded(metrics.maxPollGapNanos(), gaps, machine);
  }

  /** Keeps {@code depth} WRITE slices in flight on rail (0, 0) until stopped. */
  private static final class Pump implements SliceCallback {
    private final SoftNode local;
    private final SoftNode peer;
    private final int depth;
    final AtomicInteger done = new AtomicInteger();
    final AtomicInteger inFlight = new AtomicInteger();
    final Queue<String> failures = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;

    Pump(SoftNode local, SoftNode peer, int depth) {
      this.local = local;
      this.peer = peer;
      this.depth = depth;
    }

    void start() {
      for (int i = 0; i < depth; i++) {
        inFlight.incrementAndGet();
        local.router().submit(local.slice(this, i, WrOpcode.RDMA_WRITE, 0, peer, 0, SLICE, 0, 0));
      }
    }

    void stop() {
      running = false;
    }

    @Override
    public void onSliceDone(Slice slice, int status, Throwable cause) {
      if (status != SliceStatus.OK) {
        failures.add(SliceStatus.name(status) + " " + cause);
      }
      done.incrementAndGet();
      if (running && status == SliceStatus.OK) {
        local.router().submit(slice);
      } else {
        inFlight.decrementAndGet();
      }
    }

    @Override
    public boolean isAbandoned() {
      return false;
    }
  }
}
