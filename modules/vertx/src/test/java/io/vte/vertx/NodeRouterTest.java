package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The node's endpoints without an engine: a closed engine is neither alive nor ready; no
 * Prometheus, no metrics.
 */
@ExtendWith(BlockedThreadGuard.class)
class NodeRouterTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    Await.result(vertx.close(), WAIT);
  }

  @Test
  void aClosedEngineIsNotAliveAndNotReadyAndMetricsNeedPrometheus() {
    HttpServer server =
        Await.result(
            vertx
                .createHttpServer()
                .requestHandler(NodeRouter.create(vertx, () -> EngineHealth.check(null, false)))
                .listen(0, "127.0.0.1"),
            WAIT);
    HttpClient http = vertx.createHttpClient();
    int port = server.actualPort();
    NodeHttp live = NodeHttp.get(vertx, http, port, "/health/live");
    assertEquals(503, live.status(), live.body());
    assertEquals("DOWN", live.check("engine"));
    NodeHttp ready = NodeHttp.get(vertx, http, port, "/health/ready");
    assertEquals(503, ready.status(), ready.body());
    assertEquals("DOWN", ready.check("devices"));
    assertEquals(503, NodeHttp.get(vertx, http, port, "/health").status());
    NodeHttp metrics = NodeHttp.get(vertx, http, port, "/metrics");
    assertEquals(503, metrics.status());
    assertTrue(metrics.body().contains("no Prometheus registry"), metrics.body());
    assertEquals(404, NodeHttp.get(vertx, http, port, "/health/other").status());
    int post =
        Await.result(
            http.request(HttpMethod.POST, port, "127.0.0.1", "/health")
                .compose(r -> r.send())
                .map(r -> r.statusCode()),
            WAIT);
    assertEquals(405, post);
  }
}
