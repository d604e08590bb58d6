package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CLI's exit codes and outputs, run in-process. ({@code vte devices}, whose default choice
 * opens this host's interfaces, runs on a namespace host instead: {@code test}'s {@code
 * hosts.CrossHostRecipeTest}.)
 */
class VteMainTest {

  @Test
  void aBadFlagValueIsOneClearLineAndExitCodeTwo() {
    for (String[] args :
        List.of(
            new String[] {"verbs-bench", "--seconds", "soon"},
            new String[] {"verbs-bench", "--depth", "0"},
            new String[] {"verbs-bench", "--size", "-3"},
            new String[] {"verbs-bench", "--rounds", "0"},
            new String[] {"no-such-command"})) {
      CliRun r = CliRun.of(args);
      assertEquals(2, r.exit(), String.join(" ", args));
      assertEquals(1, r.err().lines().count(), "one line: " + r.err());
      assertTrue(r.err().startsWith("vte: "), r.err());
    }
    CliRun r = CliRun.of("verbs-bench", "--depth", "0");
    assertTrue(
        r.err().contains("--depth") && r.err().contains("0"),
        "names the flag and the value: " + r.err());
  }

  @Test
  void verbsBenchPrintsOneParseableJsonObjectWithEveryField() {
    CliRun r =
        CliRun.of("verbs-bench", "--json", "--seconds", "1", "--rounds", "2", "--size", "1048576");
    assertEquals(0, r.exit(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(1, lines.size(), r.out());
    JsonObject json = new JsonObject(lines.get(0));
    for (String field :
        List.of(
            "nio_gib_s",
            "soft_gib_s",
            "ratio",
            "lat_p50_us",
            "lat_p99_us",
            "baseline_p50_us",
            "baseline_p99_us",
            "blocking_p50_us",
            "blocking_p99_us")) {
      assertTrue(json.getDouble(field) > 0, field + " in " + json);
    }
    assertEquals(
        json.getDouble("soft_gib_s") / json.getDouble("nio_gib_s"), json.getDouble("ratio"), 0.01);
    assertEquals(
        "busy-polling", json.getString("baseline"), "like for like: the CQ is busy-polled");
    assertEquals(
        8, json.getInteger("baseline_size"), "the baseline's messages are the WRITE's size");
    // The printed latencies are rounded to 0.01 us, the ratio to 0.001: their quotient may differ
    // from the ratio by the rounding's relative error times the ratio (a large ratio on a loaded
    // machine, e.g. 335, differs from it in the first decimal)
    double lat = json.getDouble("lat_p50_us");
    double base = json.getDouble("baseline_p50_us");
    assertEquals(
        lat / base,
        json.getDouble("lat_ratio_p50"),
        lat / base * (0.005 / lat + 0.005 / base) + 0.0005 + 1e-9,
        json.encode());
    assertEquals(2, json.getInteger("rounds"), json.encode());
    assertEquals(
        2,
        json.getJsonArray("round_ratios").size(),
        "one ratio per measured round (not the warm-up): " + json);
    for (Object ratio : json.getJsonArray("round_ratios")) {
      assertTrue(((Number) ratio).doubleValue() > 0, json.encode());
    }
  }
}
