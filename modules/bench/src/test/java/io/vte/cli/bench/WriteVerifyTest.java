package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOpcode;
import io.vte.api.TransferRequest;
import io.vte.cli.common.Blocking;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.DirectMemory;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * WRITE {@code verified} proves the measured windows wrote, not the warm-up, and that no slot's
 * last WRITE did nothing.
 */
@ExtendWith(BlockedThreadGuard.class)
class WriteVerifyTest {

  @Test
  void eachMeasuredWindowWritesAPatternTheWarmUpDidNot() throws Exception {
    LoadGenerator.Plan plan =
        new LoadGenerator.Plan(TransferOpcode.WRITE, 65536, 1, 2, 1, true, false, false);
    try (LoopbackBench bench = LoopbackBench.open("wv", plan, true)) {
      // before the second window the target holds what the first window wrote
      List<Long> warmUpPatternAt = new ArrayList<>();
      Runnable beforeWindow =
          () -> {
            // past the first 8 bytes of the block: each request stamps those with a value of its
            // own
            long off = plan.region() - plan.blockSize() + 8;
            warmUpPatternAt.add(
                DataPattern.firstMismatch(
                    bench.target.address() + off,
                    off,
                    plan.blockSize() - 8,
                    DataPattern.SOURCE_SEED));
          };
      BenchResult r =
          bench.session.measure(
              plan,
              Duration.ofMillis(200),
              Duration.ofMillis(400),
              2,
              beforeWindow,
              List.of(),
              null,
              false);
      assertEquals(Boolean.TRUE, r.verified(), r.verifyDetail());
      assertEquals(-1L, warmUpPatternAt.get(0), "the warm-up wrote the plain source pattern");
      assertTrue(
          warmUpPatternAt.get(1) >= 0,
          "the first window wrote a pattern of its own: " + warmUpPatternAt);
      for (long off = 0; off < plan.region(); off += plan.blockSize()) {
        assertEquals(
            -1L,
            DataPattern.firstMismatch(
                bench.target.address() + off, off, plan.blockSize(), DataPattern.SOURCE_SEED),
            "after the run the target holds the source pattern again (for a READ run), at " + off);
      }
    }
  }

  /**
   * The initiator's engine is seen through a proxy that, once armed, turns the WRITEs of slot 1
   * after its first three into READs of the same remote block into scratch memory: they complete,
   * and the target keeps what the earlier WRITEs of the window left. Per window the target holds
   * that window's pattern in slot 1, so only the stamp of each request shows the later WRITEs did
   * nothing; the same run unarmed is verified.
   */
  @Test
  void aSlotWhoseLaterWritesDidNothingMakesTheRunReportVerifiedFalse() throws Exception {
    LoadGenerator.Plan plan =
        new LoadGenerator.Plan(TransferOpcode.WRITE, 65536, 1, 2, 1, true, false, false);
    for (boolean armed : new boolean[] {false, true}) {
      WriteDropper dropper = new WriteDropper(plan.blockSize());
      try (LoopbackBench bench = LoopbackBench.open("wd", plan, false, dropper::around)) {
        dropper.open(bench);
        BenchResult r =
            bench.session.measure(
                plan,
                Duration.ofMillis(100),
                Duration.ofMillis(400),
                1,
                () -> dropper.armed = armed,
                List.of(),
                null,
                false);
        dropper.close();
        assertEquals(0, r.failed(), "every request completed: " + r.failures());
        if (!armed) {
          assertEquals(Boolean.TRUE, r.verified(), r.verifyDetail());
          continue;
        }
        assertTrue(dropper.dropped.get() > 0, "later WRITEs of slot 1 were turned into READs");
        assertEquals(Boolean.FALSE, r.verified(), "a WRITE that did nothing is caught");
        long at = Long.parseLong(r.verifyDetail().replaceAll(".*at offset (\\d+).*", "$1"));
        assertTrue(
            at >= plan.blockSize() && at < 2L * plan.blockSize(),
            "the mismatch is in slot 1: " + r.verifyDetail());
        assertEquals(1, r.exitCode());
      }
    }
  }

  /** The proxy of {@link #aSlotWhoseLaterWritesDidNothingMakesTheRunReportVerifiedFalse}. */
  private static final class WriteDropper {
    private final int blockSize;
    private final AtomicInteger seen = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private volatile boolean armed;
    private TransferEngine engine;
    private long scratch;
    private RegisteredBuffer sink;
    private long slot1;

    WriteDropper(int blockSize) {
      this.blockSize = blockSize;
    }

    TransferEngine around(TransferEngine real) {
      engine = real;
      InvocationHandler h =
          (proxy, method, args) -> {
            if (method.getName().equals("submit")
                && args.length == 2
                && args[0] instanceof List<?> requests
                && requests.size() == 1
                && requests.get(0) instanceof TransferRequest w
                && armed
                && w.opcode() == TransferOpcode.WRITE
                && w.remoteAddress() == slot1
                && seen.incrementAndGet() > 3) {
              dropped.incrementAndGet();
              args =
                  new Object[] {
                    List.of(TransferRequest.read(sink, 0, w.segment(), slot1, blockSize)), args[1]
                  };
            }
            try {
              return method.invoke(real, args);
            } catch (InvocationTargetException e) {
              throw e.getCause();
            }
          };
      return (TransferEngine)
          Proxy.newProxyInstance(
              TransferEngine.class.getClassLoader(), new Class<?>[] {TransferEngine.class}, h);
    }

    void open(LoopbackBench bench) throws Exception {
      slot1 = bench.target.address() + blockSize;
      scratch = DirectMemory.allocate(blockSize);
      sink =
          Blocking.await(
              engine.register(scratch, blockSize, "cpu:0"), Duration.ofSeconds(30), "register");
    }

    void close() throws Exception {
      Blocking.await(engine.unregister(sink), Duration.ofSeconds(30), "unregister");
      DirectMemory.free(scratch);
    }
  }
}
