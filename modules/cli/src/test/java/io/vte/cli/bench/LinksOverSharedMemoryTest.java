package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.cli.CliRun;
import io.vte.cli.common.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vte links} against a same-host target whose only buffer is shared memory ({@code vte bench
 * target --shared-memory}): the same-host rail is probed and ok, and the network rails are reported
 * untested (the peer has no buffer outside shared memory), so the run says not ok.
 */
class LinksOverSharedMemoryTest {

  private static final Duration START = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void linksProbesTheSameHostRailAndSaysWhyTheNetworkRailsAreUntested() throws Exception {
    try (ChildVte target = ChildVte.benchTarget(1 << 20, "--shared-memory")) {
      String server = target.announce(START).getString("server_name");
      Path probe = dir.resolve("probe.json");
      Files.writeString(probe, "{\"devices\": [\"lk0@127.0.0.1\"], \"workersPerContext\": 1}");

      CliRun json = CliRun.of("links", "--target", server, "--config", probe.toString(), "--json");
      assertEquals(ExitCodes.RUN_FAILED, json.exit(), "untested rails are not ok: " + json);
      JsonObject report = new JsonObject(json.out().trim());
      List<JsonObject> shm = new ArrayList<>();
      List<JsonObject> network = new ArrayList<>();
      for (Object o : report.getJsonArray("rails")) {
        JsonObject rail = (JsonObject) o;
        ("shm".equals(rail.getString("local")) ? shm : network).add(rail);
      }
      assertEquals(1, shm.size(), "one same-host rail: " + report.encode());
      JsonObject same = shm.get(0);
      assertEquals("ok", same.getString("status"), same.encode());
      assertTrue(same.getString("remote").startsWith("shm:/"), same.encode());
      assertTrue(same.getDouble("latencyUs") > 0 && same.getDouble("firstUs") > 0, same.encode());
      assertEquals(2, network.size(), "1 local x 2 remote devices: " + report.encode());
      for (JsonObject rail : network) {
        assertEquals("untested", rail.getString("status"), rail.encode());
        assertTrue(rail.getString("cause").contains("outside shared memory"), rail.encode());
      }
      assertEquals(2, report.getInteger("failed"));

      CliRun table = CliRun.of("links", "--target", server, "--config", probe.toString());
      assertEquals(ExitCodes.RUN_FAILED, table.exit(), table.err());
      assertTrue(
          table.out().lines().anyMatch(l -> l.startsWith("shm ") && l.contains(" ok ")),
          table.out());
      assertTrue(table.out().contains("3 rail(s), 2 not ok"), table.out());
      target.terminate();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }
}
