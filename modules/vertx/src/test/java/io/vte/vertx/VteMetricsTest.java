package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBus;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * The Vert.x instance {@link VteMetrics} makes reports to Prometheus without Micrometer warnings.
 */
class VteMetricsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  @Test
  void consumersAndMessagesCauseNoAlreadyRegisteredWarning() {
    List<String> warnings = new ArrayList<>();
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
              warnings.add(r.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    // Micrometer logs through java.util.logging when SLF4J is not on the class path, as in this
    // module's tests.
    Logger micrometer = Logger.getLogger("io.micrometer");
    micrometer.addHandler(capture);
    VteMetrics metrics = VteMetrics.createVertx(new VertxOptions());
    try {
      EventBus bus = metrics.vertx().eventBus();
      List<String> addresses = List.of("node.submit", "node.status", "node.health");
      for (String address : addresses) {
        Await.result(bus.consumer(address, m -> m.reply("ok")).completion(), WAIT);
      }
      for (int i = 0; i < 3; i++) {
        for (String address : addresses) {
          assertEquals("ok", Await.result(bus.request(address, "ping"), WAIT).body());
        }
      }
      assertEquals(List.of(), warnings, "Micrometer warnings");
      assertTrue(
          metrics.registry().find("vertx.eventbus.pending").gauges().isEmpty(),
          "event-bus meters are off");
      assertFalse(metrics.registry().getMeters().isEmpty(), "the other Vert.x meters are on");
    } finally {
      micrometer.removeHandler(capture);
      Await.result(metrics.vertx().close(), WAIT);
      metrics.registry().close();
    }
  }
}
