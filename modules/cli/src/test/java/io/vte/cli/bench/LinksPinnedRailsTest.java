package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.cli.CliRun;
import io.vte.testkit.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code vte links} pins each probe to its rail (issue 42 item 1): against a {@code vte bench
 * target} whose device soft1's port is down and whose device soft2 sends nothing (a blackholed
 * path), and from a probing engine whose own second device's port is down, every rail through a
 * dead port or path is reported not ok and the command exits 1, while the healthy rail reports ok.
 * Unpinned, the probes meant for the dead rails went over live ones and reported ok.
 */
class LinksPinnedRailsTest {

  private static final Duration START = Duration.ofSeconds(60);

  @TempDir Path dir;

  @Test
  void aRailWithAPortDownOnEitherSideOrABlackholedPathIsNotOkAndLinksExits1() throws Exception {
    try (ChildVte target =
        new ChildVte(
            "bench",
            "target",
            "--devices",
            "3",
            "--json",
            "--buffer-size",
            "1048576",
            "--inject",
            "port-down:soft1@0s,drop:soft2:1@0s")) {
      String server = target.announce(START).getString("server_name");
      Await.until(
          "the target applied its two faults",
          START,
          () -> target.err().stream().filter(l -> l.endsWith(" applied")).count() == 2);

      Path oneDevice = config("{\"devices\": [\"lp0@127.0.0.1\"], \"workersPerContext\": 1}");
      Map<String, JsonObject> remote = rails(links(server, oneDevice));
      assertEquals("ok", remote.get("lp0->soft0").getString("status"), remote.toString());
      JsonObject down = remote.get("lp0->soft1");
      assertEquals("failed", down.getString("status"), "remote port down: " + down);
      assertEquals("NO_RAIL", down.getString("code"), down.encode());
      JsonObject blackholed = remote.get("lp0->soft2");
      assertEquals("failed", blackholed.getString("status"), "blackholed: " + blackholed);

      Path twoDevices =
          config("{\"devices\": [\"lp0@127.0.0.1\", \"lp1@127.0.0.1\"], \"workersPerContext\": 1}");
      Map<String, JsonObject> local =
          rails(links(server, twoDevices, "--inject", "port-down:lp1@0s"));
      assertEquals("ok", local.get("lp0->soft0").getString("status"), local.toString());
      for (String dead : new String[] {"lp1->soft0", "lp1->soft1", "lp1->soft2"}) {
        assertEquals("failed", local.get(dead).getString("status"), dead + ": " + local);
        assertEquals("NO_RAIL", local.get(dead).getString("code"), dead + ": " + local);
      }

      CliRun table =
          CliRun.of(
              "links",
              "--target",
              server,
              "--config",
              oneDevice.toString(),
              "--timeout-ms",
              "1500");
      assertEquals(1, table.exit(), table.err() + table.out());
      assertTrue(table.out().contains("3 rail(s), 2 not ok"), table.out());

      target.terminate();
      assertEquals(0, target.exitCode(Duration.ofSeconds(30)), target.err().toString());
    }
  }

  private Path config(String json) throws java.io.IOException {
    Path file = dir.resolve("links-" + System.nanoTime() + ".json");
    Files.writeString(file, json);
    return file;
  }

  private static JsonObject links(String server, Path config, String... extra) {
    String[] args = {
      "links", "--target", server, "--config", config.toString(), "--timeout-ms", "1500", "--json"
    };
    String[] all = java.util.Arrays.copyOf(args, args.length + extra.length);
    System.arraycopy(extra, 0, all, args.length, extra.length);
    CliRun run = CliRun.of(all);
    JsonObject report = new JsonObject(run.out().trim());
    int failed = report.getInteger("failed");
    assertTrue(failed > 0, "some rail is down: " + report.encode());
    assertEquals(1, run.exit(), "a rail not ok exits 1: " + run.err() + report.encode());
    return report;
  }

  /**
   * @return the report's rails by {@code local->remote}
   */
  private static Map<String, JsonObject> rails(JsonObject report) {
    Map<String, JsonObject> out = new TreeMap<>();
    report
        .getJsonArray("rails")
        .forEach(
            o -> {
              JsonObject r = (JsonObject) o;
              out.put(r.getString("local") + "->" + r.getString("remote"), r);
            });
    return out;
  }
}
