package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.TransferOpcode;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rails' bytes are counted over the measured windows only, and a run held to the same-host rail
 * fails when its measured requests took the network.
 */
@ExtendWith(BlockedThreadGuard.class)
class RailBytesTest {

  private static final LoadGenerator.Plan PLAN =
      new LoadGenerator.Plan(TransferOpcode.WRITE, 65536, 1, 4, 1, true, false, false);

  @Test
  void aSharedMemoryRunCountsEveryMeasuredByteOnTheSameHostRailAndNoneOnTheNetwork()
      throws Exception {
    try (LoopbackBench bench = LoopbackBench.open("rbs", PLAN, true)) {
      bench.session.requireSameHost();
      BenchResult r = measure(bench);
      assertEquals(Boolean.TRUE, r.verified(), r.verifyDetail());
      assertEquals(0, r.failed());
      assertEquals(
          r.bytes(),
          r.railBytes().sameHost(),
          "the measured windows' bytes, without the warm-up's and the read-backs': "
              + r.railBytes());
      assertEquals(0, r.railBytes().network(), r.railBytes().toString());
      assertTrue(r.railBytes().sameHostExpected() && !r.railBytes().fellBack());
      assertEquals(0, r.exitCode());
    }
  }

  @Test
  void aRunHeldToTheSameHostRailWhoseRequestsTookTheNetworkFails() throws Exception {
    try (LoopbackBench bench = LoopbackBench.open("rbn", PLAN, false)) {
      BenchResult free = measure(bench);
      assertFalse(free.railBytes().sameHostExpected(), "no same-host rail to this target");
      assertEquals(free.bytes(), free.railBytes().network(), free.railBytes().toString());
      assertEquals(0, free.exitCode(), "not held to the same-host rail, the network is fine");

      bench.session.requireSameHost();
      BenchResult held = measure(bench);
      assertEquals(Boolean.TRUE, held.verified(), held.verifyDetail());
      assertTrue(held.railBytes().fellBack(), held.railBytes().toString());
      assertEquals(1, held.exitCode(), "a measured request fell back to the network");
    }
  }

  private static BenchResult measure(LoopbackBench bench) throws Exception {
    return bench.session.measure(
        PLAN, Duration.ofMillis(100), Duration.ofMillis(300), 2, () -> {}, List.of(), null, false);
  }
}
