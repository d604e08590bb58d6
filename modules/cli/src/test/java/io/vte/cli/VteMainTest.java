package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import io.vte.api.DefaultSoftDevices;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The CLI's exit codes and outputs, run in-process. */
class VteMainTest {

  @Test
  void devicesShowsTheDefaultChoiceWithItsReasonAndTheSoftProviderOpensExactlyThoseDevices() throws Exception {
    CliRun r = CliRun.of("devices");
    assertEquals(0, r.exit(), r.err());
    DefaultSoftDevices.Choice choice = DefaultSoftDevices.forThisHost();
    List<String> lines = r.out().lines().toList();
    assertEquals("default soft devices (no --devices, \"devices\": []): " + choice.reason(), lines.get(0));
    List<String> providerLines = lines.stream().filter(l -> l.startsWith("soft ")).toList();
    assertEquals(choice.devices().size(), providerLines.size(), r.out());
    for (int i = 0; i < choice.devices().size(); i++) {
      DefaultSoftDevices.Device d = choice.devices().get(i);
      assertEquals("soft" + i, d.name());
      assertTrue(lines.contains(String.format("  %-8s %-16s %s", d.name(), d.address(), d.interfaceName())), r.out());
      String gid = io.vte.verbs.Gid.fromInetAddress(java.net.InetAddress.getByName(d.address())).toString();
      assertTrue(providerLines.get(i).matches("soft\\s+" + d.name() + "\\s+1\\s+ACTIVE\\s+4096\\s+" + gid + "\\s+.*"),
          providerLines.get(i) + " carries " + gid);
    }
    for (String skipped : choice.skipped()) {
      assertTrue(lines.contains("  skipped " + skipped), r.out());
    }
    assertTrue(r.out().lines().anyMatch(l -> l.startsWith("ibverbs")), "the ibverbs provider reports itself: " + r.out());
  }

  @Test
  void aBadFlagValueIsOneClearLineAndExitCodeTwo() {
    for (String[] args : List.of(new String[] {"verbs-bench", "--seconds", "soon"},
        new String[] {"verbs-bench", "--depth", "0"}, new String[] {"verbs-bench", "--size", "-3"},
        new String[] {"verbs-bench", "--rounds", "0"},
        new String[] {"no-such-command"})) {
      CliRun r = CliRun.of(args);
      assertEquals(2, r.exit(), String.join(" ", args));
      assertEquals(1, r.err().lines().count(), "one line: " + r.err());
      assertTrue(r.err().startsWith("vte: "), r.err());
    }
    CliRun r = CliRun.of("verbs-bench", "--depth", "0");
    assertTrue(r.err().contains("--depth") && r.err().contains("0"), "names the flag and the value: " + r.err());
  }

  @Test
  void verbsBenchPrintsOneParseableJsonObjectWithEveryField() {
    CliRun r = CliRun.of("verbs-bench", "--json", "--seconds", "1", "--rounds", "2", "--size", "1048576");
    assertEquals(0, r.exit(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(1, lines.size(), r.out());
    JsonObject json = new JsonObject(lines.get(0));
    for (String field : List.of("nio_gib_s", "soft_gib_s", "ratio", "lat_p50_us", "lat_p99_us", "baseline_p50_us",
        "baseline_p99_us")) {
      assertTrue(json.getDouble(field) > 0, field + " in " + json);
    }
    assertEquals(json.getDouble("soft_gib_s") / json.getDouble("nio_gib_s"), json.getDouble("ratio"), 0.01);
    assertEquals(2, json.getInteger("rounds"), json.encode());
    assertEquals(2, json.getJsonArray("round_ratios").size(), "one ratio per measured round (not the warm-up): " + json);
    for (Object ratio : json.getJsonArray("round_ratios")) {
      assertTrue(((Number) ratio).doubleValue() > 0, json.encode());
    }
  }
}
