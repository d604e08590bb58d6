package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.cli.CliRun;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.ibv.FakeIbverbs;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code vte bench} over the ibverbs JNI provider and the fake libibverbs, verified. */
@Tag("fake")
@ExtendWith(BlockedThreadGuard.class)
class BenchOverIbverbsTest {

  @Test
  void writeAndReadBenchesRunVerifiedOverTheJniProvider() {
    for (String operation : new String[] {"write", "read"}) {
      FakeIbverbs.reset();
      FakeIbverbs.setDevices(new String[] {"fake_mlx5_0", "fake_mlx5_1"}, 1);
      CliRun r =
          CliRun.of(
              "bench",
              "--transport",
              "ibverbs",
              "--devices",
              "fake_mlx5_0,fake_mlx5_1",
              "--operation",
              operation,
              "--block-size",
              "1048576",
              "--duration",
              "0.5",
              "--warmup",
              "0.2",
              "--verify",
              "--json",
              "--no-progress");
      assertEquals(0, r.exit(), r.err());
      List<String> lines = r.out().lines().toList();
      JsonObject json = new JsonObject(lines.get(lines.size() - 1));
      assertEquals(operation, json.getString("operation"));
      assertEquals(0L, json.getLong("failed"), json.encode());
      assertEquals(true, json.getBoolean("verified"), json.encode());
      assertTrue(json.getLong("ops") > 0, json.encode());
      assertTrue(FakeIbverbs.count("bytes_moved") >= json.getLong("ops") * 1048576L);
      assertEquals(List.of(), FakeIbverbs.refusals());
      FakeIbverbs.assertNothingLive();
    }
  }
}
