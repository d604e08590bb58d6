package io.vte.vertx;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.healthchecks.CheckResult;
import io.vertx.ext.healthchecks.HealthChecks;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.Router;
import io.vertx.micrometer.PrometheusScrapingHandler;
import io.vertx.micrometer.backends.BackendRegistries;
import java.util.function.Supplier;

/**
 * HTTP endpoints of a node (vertx-web), all {@code GET}:
 *
 * <ul>
 *   <li>{@code /metrics}: Prometheus text of the Vert.x Micrometer registry (Micrometer's scraping
 *       handler), 503 when that registry is not Prometheus;
 *   <li>{@code /health/live}: 200 while the engine is open (the process is alive and serving), 503
 *       once it is closed; for liveness probes: a degraded etcd or a port down does not make it
 *       fail;
 *   <li>{@code /health/ready}: 200 when the node can move data (engine open, every device port
 *       ACTIVE, metadata reachable), else 503; for readiness probes and load balancers;
 *   <li>{@code /health}: the whole {@link EngineHealth} JSON, 200 when UP (the same condition as
 *       ready), else 503.
 * </ul>
 *
 * The two probe endpoints answer in vertx-health-check's format: {@code {status, outcome, checks:
 * [{id, status, data}]}} with checks {@code engine} (live) and {@code engine}, {@code devices},
 * {@code metadata} (ready). Anything else is 404, another method 405.
 */
public final class NodeRouter {

  private NodeRouter() {}

  /**
   * @param vertx the Vert.x instance the node runs on (its Micrometer registry is scraped)
   * @param health supplies the current {@link EngineHealth} JSON
   * @return the router, for {@code createHttpServer().requestHandler(router)}
   */
  public static Router create(Vertx vertx, Supplier<JsonObject> health) {
    Router router = Router.router(vertx);
    router.get("/metrics").handler(metricsHandler());
    HealthChecks live = HealthChecks.create(vertx).register("engine", engineCheck(health));
    HealthChecks ready =
        HealthChecks.create(vertx)
            .register("engine", engineCheck(health))
            .register("devices", devicesCheck(health))
            .register("metadata", metadataCheck(health));
    router.get("/health/live").handler(ctx -> answer(ctx, live));
    router.get("/health/ready").handler(ctx -> answer(ctx, ready));
    router
        .get("/health")
        .handler(
            ctx -> {
              JsonObject h = health.get();
              ctx.response()
                  .setStatusCode("UP".equals(h.getString("status")) ? 200 : 503)
                  .putHeader("content-type", "application/json")
                  .end(h.encode());
            });
    return router;
  }

  /**
   * Answers with the checks' JSON, 200 when all are up, else 503. (Not vertx-web's
   * HealthCheckHandler: in this project's tests some of its answers never came, so a probe hung
   * until its client gave up.)
   */
  private static void answer(io.vertx.ext.web.RoutingContext ctx, HealthChecks checks) {
    checks
        .checkStatus()
        .onComplete(
            ar -> {
              boolean up = ar.succeeded() && CheckResult.isUp(ar.result());
              JsonObject body =
                  ar.succeeded()
                      ? ar.result().toJson()
                      : new JsonObject()
                          .put("status", "DOWN")
                          .put("error", String.valueOf(ar.cause()));
              ctx.response()
                  .setStatusCode(up ? 200 : 503)
                  .putHeader("content-type", "application/json")
                  .end(body.encode());
            });
  }

  private static Handler<io.vertx.ext.web.RoutingContext> metricsHandler() {
    MeterRegistry registry = BackendRegistries.getDefaultNow();
    if (registry instanceof PrometheusMeterRegistry prometheus) {
      return PrometheusScrapingHandler.create(prometheus);
    }
    return ctx ->
        ctx.response().setStatusCode(503).end("metrics are not enabled (no Prometheus registry)\n");
  }

  private static Handler<Promise<Status>> engineCheck(Supplier<JsonObject> health) {
    return p -> {
      JsonObject h = health.get();
      JsonObject data =
          new JsonObject()
              .put("engine", h.getString("engine"))
              .put("serverName", h.getString("serverName"));
      p.complete("open".equals(h.getString("engine")) ? Status.OK(data) : Status.KO(data));
    };
  }

  private static Handler<Promise<Status>> devicesCheck(Supplier<JsonObject> health) {
    return p -> {
      JsonObject h = health.get();
      JsonArray devices = h.getJsonArray("devices", new JsonArray());
      boolean allUp =
          "open".equals(h.getString("engine"))
              && !devices.isEmpty()
              && devices.stream().allMatch(d -> ((JsonObject) d).getBoolean("up", false));
      JsonObject data = new JsonObject().put("devices", devices);
      p.complete(allUp ? Status.OK(data) : Status.KO(data));
    };
  }

  private static Handler<Promise<Status>> metadataCheck(Supplier<JsonObject> health) {
    return p -> {
      JsonObject h = health.get();
      String metadata = h.getString("metadata", "unknown");
      JsonObject data = new JsonObject().put("metadata", metadata);
      p.complete(
          "open".equals(h.getString("engine")) && "ok".equals(metadata)
              ? Status.OK(data)
              : Status.KO(data));
    };
  }
}
