package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vte.testkit.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The Vert.x instance {@link VteMetrics} makes reports to Prometheus without Micrometer warnings.
 */
class VteMetricsTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  // Micrometer logs through java.util.logging when SLF4J is not on the class path, as in this
  // module's tests.
  private final Logger micrometer = Logger.getLogger("io.micrometer");
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final Handler capture =
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
  private VteMetrics metrics;

  @BeforeEach
  void start() {
    micrometer.addHandler(capture);
    metrics = VteMetrics.createVertx(new VertxOptions());
  }

  @AfterEach
  void stop() {
    micrometer.removeHandler(capture);
    Await.result(metrics.vertx().close(), WAIT);
    metrics.registry().close();
  }

  @Test
  void consumersAndMessagesCauseNoAlreadyRegisteredWarning() {
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
  }

  /**
   * Each handshake client is an HTTP client whose calls are POSTs: with Vert.x's HTTP client meters
   * on, the second client's first call drew "This Gauge has been already registered" for {@code
   * vertx.http.client.active.requests}.
   */
  @Test
  void twoHttpClientsPostingCauseNoAlreadyRegisteredWarning() {
    HttpServer server =
        Await.result(
            metrics
                .vertx()
                .createHttpServer()
                .requestHandler(r -> r.body().onSuccess(b -> r.response().end(b)))
                .listen(0, "127.0.0.1"),
            WAIT);
    for (int client = 0; client < 2; client++) {
      HttpClient http = metrics.vertx().createHttpClient();
      for (int call = 0; call < 2; call++) {
        Buffer echoed =
            Await.result(
                http.request(HttpMethod.POST, server.actualPort(), "127.0.0.1", "/")
                    .compose(req -> req.send("ping"))
                    .compose(HttpClientResponse::body),
                WAIT);
        assertEquals("ping", echoed.toString());
      }
      Await.result(http.close(), WAIT);
    }
    assertEquals(List.of(), warnings, "Micrometer warnings");
    assertTrue(
        metrics.registry().find("vertx.http.client.active.requests").gauges().isEmpty(),
        "HTTP client meters are off");
  }
}
