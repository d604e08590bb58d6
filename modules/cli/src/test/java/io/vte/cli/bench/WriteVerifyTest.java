package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.TransferOpcode;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** WRITE {@code verified} proves the measured windows wrote, not the warm-up. */
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
            long off = plan.region() - plan.blockSize();
            warmUpPatternAt.add(
                DataPattern.firstMismatch(
                    bench.target.address() + off, off, plan.blockSize(), DataPattern.SOURCE_SEED));
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
}
