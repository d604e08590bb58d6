package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The metrics table of docs/operations.md names exactly the {@code vte.*} meters a node registers
 * once it has moved bytes through its verticle: a meter added or renamed in the code fails this
 * test until the page says what it means.
 */
@ExtendWith(BlockedThreadGuard.class)
class MetricsPageTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Path PAGE = Path.of("../../docs/operations.md");
  private static final String HARDWARE_HEADING = "### What a NIC can count";
  private static final Pattern ROW = Pattern.compile("(?m)^\\| `(vte\\.[a-z.]+)` \\|");

  @Test
  void theMetricsTableNamesEveryMeterANodeRegisters() throws Exception {
    Set<String> documented = new TreeSet<>();
    String page = Files.readString(PAGE);
    // the table after this heading lists meters only an ibverbs device's port counters register
    int hardware = page.indexOf(HARDWARE_HEADING);
    assertTrue(hardware > 0, "the page has its hardware meters' section");
    Matcher m = ROW.matcher(page.substring(0, hardware));
    while (m.find()) {
      documented.add(m.group(1));
    }
    assertTrue(documented.size() >= 10, "the page's metrics table was found: " + documented);

    VteMetrics metrics = VteMetrics.createVertx(new VertxOptions());
    Vertx vertx = metrics.vertx();
    try {
      TransferEngineClient peer = ReadmeVerticleExampleTest.deployPeer(vertx);
      String serverName = Await.result(peer.stats(), WAIT).getString("serverName");
      JsonObject result =
          Await.result(ReadmeVerticleExampleTest.writeOverTheBus(vertx, serverName), WAIT);
      assertTrue(result.getBoolean("allCompleted"), result.encode());

      // per-rail gauges appear at the rails' next refresh (every second), hence a wait
      Await.untilEquals(
          "the meters registered to match docs/operations.md's metrics table",
          WAIT,
          documented,
          () -> {
            Set<String> registered = new TreeSet<>();
            metrics.registry().getMeters().stream()
                .map(meter -> meter.getId().getName())
                .filter(name -> name.startsWith("vte."))
                .forEach(registered::add);
            return registered;
          });
    } finally {
      Await.result(vertx.close(), WAIT);
      metrics.registry().close();
    }
  }
}
