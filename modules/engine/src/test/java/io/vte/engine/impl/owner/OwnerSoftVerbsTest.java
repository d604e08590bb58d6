package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import io.vte.verbs.WrOpcode;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Owners over soft verbs between two nodes in one JVM, with a minimal engine layer that checks
 * bytes.
 */
@ExtendWith(BlockedThreadGuard.class)
class OwnerSoftVerbsTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int SLICE = 64 * 1024;

  private Vertx vertx;
  private SoftNode a;
  private SoftNode b;

  private void start(int devices, OwnerConfig config, int memoryBytes) {
    // Blocked-thread warnings carry the blocked stack (after 1 s), so a failure says where.
    vertx =
        Vertx.vertx(
            new io.vertx.core.VertxOptions()
                .setWarningExceptionTime(1)
                .setWarningExceptionTimeUnit(java.util.concurrent.TimeUnit.SECONDS));
    a = SoftNode.start(vertx, "a", devices, config, memoryBytes);
    b = SoftNode.start(vertx, "b", devices, config, memoryBytes);
  }

  @AfterEach
  void tearDown() {
    if (a != null) {
      Await.result(a.close(), WAIT);
      a = null;
    }
    if (b != null) {
      Await.result(b.close(), WAIT);
      b = null;
    }
    if (vertx != null) {
      Await.result(vertx.close(), WAIT);
      vertx = null;
    }
  }

  private static void fill(SoftNode n, int offset, int length, long seed) {
    byte[] bytes = new byte[length];
    new Random(seed).nextBytes(bytes);
    n.memory.duplicate().position(offset).put(bytes);
  }

  private static ByteBuffer view(SoftNode n, int offset, int length) {
    return n.memory.duplicate().position(offset).limit(offset + length).slice();
  }

  /**
   * Slices {@code [offset, offset+length)} of both memories into 64 KiB pieces spread over every
   * rail.
   */
  private static List<Slice> slices(Transfer t, int opcode, int offset, int length, int slice) {
    List<Slice> list = new ArrayList<>();
    int devices = t.local.contexts.size();
    for (int off = 0, i = 0; off < length; off += slice, i++) {
      int len = Math.min(slice, length - off);
      list.add(
          t.local.slice(
              t,
              i,
              opcode,
              offset + off,
              t.peer,
              offset + off,
              len,
              i % devices,
              (i / devices) % t.peer.contexts.size()));
    }
    return list;
  }

  private static void await(Transfer t, int count) {
    Await.until(
        "slices finished (" + t.finished() + "/" + count + ", failures " + t.failures.peek() + ")",
        WAIT,
        () -> t.finished() >= count);
    assertEquals(count, t.finished());
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 4})
  void byteExactWriteAndReadThroughOwners(int workers) {
    start(
        4,
        OwnerTestConfig.defaults().withWorkersPerContext(workers).withQueueSizes(256, 64),
        8 << 20);
    int half = 4 << 20;
    fill(a, 0, half, workers);
    Transfer write = new Transfer(a, b);
    List<Slice> writes = slices(write, WrOpcode.RDMA_WRITE, 0, half, SLICE);
    write.submitAll(writes);
    await(write, writes.size());
    assertEquals(writes.size(), write.ok.get(), "failures: " + write.failures);
    assertEquals(view(a, 0, half), view(b, 0, half), "WRITE moved the bytes exactly");

    fill(b, half, half, 100 + workers);
    Transfer read = new Transfer(a, b);
    List<Slice> reads = slices(read, WrOpcode.RDMA_READ, half, half, SLICE);
    // Odd sizes: 1 byte, 3 bytes, a page and a byte.
    reads.add(a.slice(read, 1000, WrOpcode.RDMA_READ, 100, b, 200, 1, 0, 1));
    reads.add(a.slice(read, 1001, WrOpcode.RDMA_READ, 300, b, 400, 3, 1, 0));
    reads.add(a.slice(read, 1002, WrOpcode.RDMA_READ, 8192, b, 16384, 4097, 1, 1));
    read.submitAll(reads);
    await(read, reads.size());
    assertEquals(reads.size(), read.ok.get(), "failures: " + read.failures);
    assertEquals(view(b, half, half), view(a, half, half), "READ moved the bytes exactly");
    assertEquals(view(b, 200, 1), view(a, 100, 1));
    assertEquals(view(b, 400, 3), view(a, 300, 3));
    assertEquals(view(b, 16384, 4097), view(a, 8192, 4097));
    assertEquals(16, a.endpointsAlive(), "one endpoint per (local, remote) device pair");
    assertEquals(16, b.endpointsAlive(), "the passive side has the same sixteen");
    assertEquals(0, write.retries.get() + read.retries.get(), "no retries on a healthy fabric");
  }

  @Test
  void loopbackOnOneDeviceAndAcrossDevicesOfOneNode() {
    start(2, OwnerTestConfig.defaults(), 4 << 20);
    fill(a, 0, 1 << 20, 5);
    Transfer self = new Transfer(a, a);
    List<Slice> list = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      int remoteDevice = i % 2;
      list.add(
          a.slice(
              self,
              i,
              WrOpcode.RDMA_WRITE,
              i * SLICE,
              a,
              (1 << 20) + i * SLICE,
              SLICE,
              0,
              remoteDevice));
    }
    self.submitAll(list);
    await(self, 16);
    assertEquals(16, self.ok.get(), "failures: " + self.failures);
    assertEquals(view(a, 0, 1 << 20), view(a, 1 << 20, 1 << 20));
    // a0 -> a0 (active + its passive twin) and a0 -> a1 (active on a0, passive on a1).
    assertEquals(4, a.endpointsAlive());
  }

  @Test
  void simultaneousOpenBarrierSynchronised200Times() throws Exception {
    start(1, OwnerTestConfig.defaults().withWorkersPerContext(2).withQpsPerEndpoint(2), 64 * 1024);
    CyclicBarrier barrier = new CyclicBarrier(2);
    long collisions = 0;
    for (int i = 0; i < 200; i++) {
      fill(a, 0, 4096, i);
      fill(b, 8192, 4096, -i);
      Transfer ab = new Transfer(a, b);
      Transfer ba = new Transfer(b, a);
      Slice sa = a.slice(ab, 0, WrOpcode.RDMA_WRITE, 0, b, 0, 4096, 0, 0);
      Slice sb = b.slice(ba, 0, WrOpcode.RDMA_WRITE, 8192, a, 8192, 4096, 0, 0);
      Thread ta = new Thread(() -> submitAfter(barrier, ab, sa));
      Thread tb = new Thread(() -> submitAfter(barrier, ba, sb));
      ta.start();
      tb.start();
      ta.join();
      tb.join();
      await(ab, 1);
      await(ba, 1);
      assertEquals(1, ab.ok.get(), "iteration " + i + ": " + ab.failures);
      assertEquals(1, ba.ok.get(), "iteration " + i + ": " + ba.failures);
      assertEquals(view(a, 0, 4096), view(b, 0, 4096), "iteration " + i);
      assertEquals(view(b, 8192, 4096), view(a, 8192, 4096), "iteration " + i);
      assertEquals(1, a.endpointsAlive(), "iteration " + i);
      assertEquals(1, b.endpointsAlive(), "iteration " + i);
      for (SoftNode n : List.of(a, b)) {
        for (int o = 0; o < n.contexts.get(0).ownerCount(); o++) {
          OwnerMetrics m = n.contexts.get(0).ownerMetrics(o);
          collisions += m.simultaneousOpensKept() + m.simultaneousOpensYielded();
        }
      }
      // Fresh devices for the next round: both sides connect for the first time again.
      a.closeDevice(0);
      b.closeDevice(0);
      a.openDevice(0);
      b.openDevice(0);
    }
    System.out.println(
        "soft verbs simultaneous open: " + collisions + " collisions resolved in 200 iterations");
    assertTrue(collisions > 0, "the barrier produced real simultaneous opens");
  }

  private static void submitAfter(CyclicBarrier barrier, Transfer t, Slice s) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    t.submitAll(List.of(s));
  }

  @Test
  void pollingNeverStallsBehindFiftyDeadHandshakes() throws Exception {
    start(1, OwnerTestConfig.defaults().withHandshakeDeadline(Duration.ofSeconds(1)), 4 << 20);
    try (ServerSocket silent = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        JitterProbe machine = new JitterProbe()) {
      String dead = "127.0.0.1:" + silent.getLocalPort();
      Transfer warm = new Transfer(a, b);
      warm.submitAll(slices(warm, WrOpcode.RDMA_WRITE, 0, SLICE, SLICE));
      await(warm, 1);
      OwnerHarness.Recorder deadRec = new OwnerHarness.Recorder();
      long start = System.nanoTime();
      List<Slice> deadSlices = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        Slice s = new Slice(deadRec, i, WrOpcode.RDMA_WRITE, a.base, 0x1000, 64);
        s.assign(
            new io.vte.engine.impl.rail.Rail(0, a.device(0), dead, "x" + i),
            a.regions.get(0).lkey(),
            1);
        deadSlices.add(s);
      }
      a.router().submitAll(deadSlices);
      long liveDuring = 0;
      int rounds = 0;
      while (deadRec.completed() < 50 && System.nanoTime() - start < WAIT.toNanos()) {
        Transfer t = new Transfer(a, b);
        List<Slice> batch = slices(t, WrOpcode.RDMA_WRITE, 0, 16 * SLICE, SLICE);
        t.submitAll(batch);
        await(t, batch.size());
        assertEquals(batch.size(), t.ok.get(), "live transfers fail: " + t.failures);
        rounds++;
        if (deadRec.completed() == 0) {
          liveDuring += batch.size();
        }
      }
      long elapsedMs = (System.nanoTime() - start) / 1_000_000;
      assertEquals(50, deadRec.count(SliceStatus.HANDSHAKE_FAILED));
      assertTrue(
          elapsedMs >= 900,
          "dead handshakes failed at the deadline, not before: " + elapsedMs + " ms");
      assertTrue(
          liveDuring >= 64, "live transfers kept completing while handshakes hung: " + liveDuring);
      OwnerMetrics m = a.contexts.get(0).ownerMetrics(0);
      Histogram gaps = m.pollGapHistogram();
      System.out.printf(
          "soft verbs, 50 dead handshakes: %d live 64 KiB slices in %d ms (%d rounds), CQ poll gap"
              + " max %.3f ms p99.9 %.3f ms p99 %.3f ms p50 %.4f ms (%d samples); machine stall max %.3f ms%n",
          liveDuring,
          elapsedMs,
          rounds,
          m.maxPollGapNanos() / 1e6,
          gaps.getValueAtPercentile(99.9) / 1e6,
          gaps.getValueAtPercentile(99) / 1e6,
          gaps.getValueAtPercentile(50) / 1e6,
          gaps.getTotalCount(),
          machine.maxLateNanos() / 1e6);
      assertPollGapBounded(m.maxPollGapNanos(), gaps, machine);
    }
  }

  /**
   * The owner's longest CQ poll gap stays under 50 ms beyond what the machine itself stalled every
   * thread (a shared 2-core host under load can deschedule any thread); the 99.9th percentile stays
   * under 50 ms.
   */
  static void assertPollGapBounded(long maxGapNanos, Histogram gaps, JitterProbe machine) {
    long allowance = 50_000_000L + machine.maxLateNanos();
    assertTrue(
        maxGapNanos < allowance,
        "max CQ poll gap "
            + maxGapNanos / 1e6
            + " ms, machine stalls "
            + machine.maxLateNanos() / 1e6
            + " ms");
    assertTrue(
        gaps.getValueAtPercentile(99.9) < 50_000_000L,
        "p99.9 CQ poll gap " + gaps.getValueAtPercentile(99.9) / 1e6 + " ms");
  }

  /**
   * Injects a fault on a's owner of rail (device, b's device) once one of its endpoint's QPs has
   * slices posted. The owner drains its queue before it posts, so a command queued right after a
   * submission can run before the slices are on a QP.
   */
  private void failOnceInFlight(int device, java.util.function.ObjIntConsumer<Endpoint> fault) {
    String path = b.serverName() + "@" + b.device(device);
    Await.until(
        "a QP of a" + device + "'s endpoint to " + path + " has slices in flight",
        WAIT,
        () ->
            OwnerVerticleTest.onOwner(
                a.contexts.get(device).ownerOf(a.rail(device, b, device)),
                o -> {
                  Endpoint victim = o.endpoint(path);
                  for (int q = 0; victim != null && q < victim.qpCount(); q++) {
                    if (victim.qpOutstanding(q) > 0) {
                      fault.accept(victim, q);
                      return true;
                    }
                  }
                  return false;
                }));
  }

  @Test
  void qpFatalAndPortDownMidStreamEveryRequestCompletes() {
    start(
        4,
        OwnerTestConfig.defaults().withQueueSizes(256, 64).withFlushDeadline(Duration.ofSeconds(2)),
        16 << 20);
    int total = 16 << 20;
    fill(a, 0, total, 7);
    Transfer t = new Transfer(a, b);
    List<Slice> all = slices(t, WrOpcode.RDMA_WRITE, 0, total, SLICE);
    t.submitAll(all.subList(0, 64));
    await(t, 64);
    assertEquals(16, a.endpointsAlive());
    // A QP fatal on a0's endpoint to b0, mid-stream. While a0 drops every frame nothing it posts
    // can
    // complete, so the QP dies under slices in flight (the requester would retransmit them once
    // drops stop).
    a.provider.faults().dropFrames(a.device(0), 1.0, 1);
    t.submitAll(all.subList(64, 160));
    failOnceInFlight(
        0, (victim, q) -> a.provider.faults().forceQpError(a.device(0), victim.qp(q).qpNum()));
    a.provider.faults().clearFrameFaults(a.device(0));
    await(t, 160);
    long retriesAfterQpFatal = t.retries.get();
    // Port down on a1, mid-stream the same way; then back up.
    a.provider.faults().dropFrames(a.device(1), 1.0, 2);
    t.submitAll(all.subList(160, all.size()));
    failOnceInFlight(1, (victim, q) -> a.provider.faults().portDown(a.device(1), 1));
    a.provider.faults().clearFrameFaults(a.device(1));
    await(t, all.size());
    assertEquals(
        all.size(), t.ok.get(), "every slice completed on the remaining rails: " + t.failures);
    assertEquals(t.submits.get(), t.ends.get(), "every submission ended exactly once");
    assertEquals(
        -1, view(a, 0, total).mismatch(view(b, 0, total)), "first differing byte after the faults");
    assertTrue(retriesAfterQpFatal > 0, "the QP fatal hit slices in flight");
    assertTrue(t.retries.get() > retriesAfterQpFatal, "the port down hit slices in flight");
    assertTrue(a.contexts.get(1).liveQpCount() == 0, "port down retired every endpoint of a1");
    a.provider.faults().portUp(a.device(1), 1);
    Await.until(
        "a1 accepts work again",
        WAIT,
        () -> {
          Transfer probe = new Transfer(a, b);
          probe.retry = false;
          List<Slice> probes = new ArrayList<>();
          for (int r = 0; r < 4; r++) {
            probes.add(a.slice(probe, r, WrOpcode.RDMA_WRITE, 0, b, 0, 64, 1, r));
          }
          probe.submitAll(probes);
          Await.until("probe ends", WAIT, () -> probe.finished() == 4);
          return probe.ok.get() == 4;
        });
    Transfer again = new Transfer(a, b);
    List<Slice> round = slices(again, WrOpcode.RDMA_WRITE, 0, 64 * SLICE, SLICE);
    again.submitAll(round);
    await(again, round.size());
    assertEquals(round.size(), again.ok.get(), "failures: " + again.failures);
    Await.until(
        "endpoints back to baseline (16), now " + a.endpointsAlive(),
        WAIT,
        () -> a.endpointsAlive() == 16);
    System.out.println(
        "faults mid-stream: "
            + t.retries.get()
            + " retries, "
            + a.contexts.get(0).ownerMetrics(0).qpFatalEvents()
            + " QP-fatal events on a0 owner 0");
  }

  @Test
  void closeWithTransfersInFlightCompletesAllAndLeavesNothing() {
    // Warm up once so lazily created JVM and library threads and opened jars are in the baseline.
    start(2, OwnerTestConfig.defaults(), 1 << 20);
    Transfer warm = new Transfer(a, b);
    warm.submitAll(slices(warm, WrOpcode.RDMA_WRITE, 0, 1 << 20, SLICE));
    await(warm, 16);
    tearDown();
    ResourceSnapshot before = ResourceSnapshot.take();
    start(2, OwnerTestConfig.defaults().withWorkersPerContext(2).withQueueSizes(128, 32), 16 << 20);
    Transfer t = new Transfer(a, b);
    List<Slice> all = slices(t, WrOpcode.RDMA_WRITE, 0, 16 << 20, SLICE);
    t.submitAll(all);
    t.submitAll(slices(t, WrOpcode.RDMA_READ, 0, 16 << 20, SLICE));
    Await.until("some slices completed", WAIT, () -> t.ok.get() > 10);
    // Close the side with work in flight first: its slices end OK or ENGINE_CLOSED, nothing else.
    Await.result(a.close(), WAIT);
    Await.until("every slice completed", WAIT, () -> t.ends.get() == t.submits.get());
    assertEquals(0, t.failed.get(), "failures: " + t.failures);
    assertEquals(t.submits.get(), t.ok.get() + t.closed.get());
    assertTrue(t.closed.get() > 0, "work was still in flight at close");
    System.out.println(
        "close with work in flight: " + t.ok.get() + " OK, " + t.closed.get() + " ENGINE_CLOSED");
    Await.result(b.close(), WAIT);
    a = null;
    b = null;
    Await.result(vertx.close(), WAIT);
    vertx = null;
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(15));
  }
}
