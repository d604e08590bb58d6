package io.vte.vertx;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.micrometer.backends.BackendRegistries;
import java.util.function.Supplier;

/**
 * HTTP endpoints of a node: {@code GET /metrics} (Prometheus text format of the Vert.x Micrometer
 * registry, 503 when that registry is not Prometheus) and {@code GET /health} (the {@link EngineHealth}
 * JSON, 200 when UP, 503 when DOWN). Anything else is 404.
 */
public final class NodeHttpHandler implements Handler<HttpServerRequest> {

  private final Supplier<JsonObject> health;

  /** @param health supplies the current health JSON */
  public NodeHttpHandler(Supplier<JsonObject> health) {
    this.health = health;
  }

  @Override
  public void handle(HttpServerRequest req) {
    if (req.method() != HttpMethod.GET) {
      req.response().setStatusCode(405).end();
      return;
    }
    switch (req.path()) {
      case "/metrics" -> {
        MeterRegistry registry = BackendRegistries.getDefaultNow();
        if (registry instanceof PrometheusMeterRegistry prometheus) {
          req.response().putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8").end(prometheus.scrape());
        } else {
          req.response().setStatusCode(503).end("metrics are not enabled (no Prometheus registry)\n");
        }
      }
      case "/health" -> {
        JsonObject h = health.get();
        req.response().setStatusCode("UP".equals(h.getString("status")) ? 200 : 503)
            .putHeader("content-type", "application/json").end(h.encode());
      }
      default -> req.response().setStatusCode(404).end("not found: " + req.path() + " (try /metrics or /health)\n");
    }
  }
}
