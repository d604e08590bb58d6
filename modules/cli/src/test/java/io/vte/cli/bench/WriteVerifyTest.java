package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.EngineOptions;
import io.vte.api.TransferOpcode;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** WRITE {@code verified} proves the measured windows wrote, not the warm-up. */
@ExtendWith(BlockedThreadGuard.class)
class WriteVerifyTest {

  private static EngineOptions options(String name) {
    return new EngineOptions()
        .setDevices(List.of(name + "@127.0.0.1"))
        .setWorkersPerContext(1)
        .setRpcHost("127.0.0.1");
  }

  @Test
  void eachMeasuredWindowWritesAPatternTheWarmUpDidNot() throws Exception {
    LoadGenerator.Plan plan = new LoadGenerator.Plan(TransferOpcode.WRITE, 65536, 1, 2, 1, true);
    try (BenchTarget target = BenchTarget.start(options("wvt"), plan.region(), true);
        BenchInitiator initiator = BenchInitiator.start(options("wvi"));
        InitiatorSession session =
            InitiatorSession.open(
                initiator.vertx(), initiator.engine(), target.serverName(), plan.region())) {
      BenchResult r =
          session.measure(
              plan,
              Duration.ofMillis(200),
              Duration.ofMillis(400),
              2,
              () -> {},
              List.of(),
              null,
              false);
      assertEquals(Boolean.TRUE, r.verified(), r.verifyDetail());
      for (long off = 0; off < plan.region(); off += plan.blockSize()) {
        assertTrue(
            DataPattern.firstMismatch(
                    target.address() + off, off, plan.blockSize(), DataPattern.SOURCE_SEED)
                >= 0,
            "block at " + off + " holds the warm-up's pattern, not a measured window's");
      }
    }
  }
}
