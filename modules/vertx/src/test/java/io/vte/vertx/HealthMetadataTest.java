package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Health follows the metadata store: DOWN and not ready while etcd is unreachable, UP again when it
 * is back; alive throughout, so a liveness probe does not restart a node that still moves data to
 * cached peers.
 */
@ExtendWith(BlockedThreadGuard.class)
class HealthMetadataTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void healthIsDownWhileEtcdIsPausedAndUpAfterwards() {
    try (EtcdServer etcd = EtcdServer.start()) {
      Vertx vertx = Vertx.vertx();
      try {
        TransferEngineVerticle node = new TransferEngineVerticle();
        JsonObject config =
            new JsonObject()
                .put("devices", new JsonArray().add("hm0@127.0.0.1"))
                .put("workersPerContext", 1)
                .put("metadataUri", etcd.uri())
                .put("segmentName", "health-node")
                .put("httpPort", 0)
                .put(
                    "metadata",
                    new JsonObject().put("healthCheckIntervalMs", 200).put("callDeadlineMs", 1000));
        String id =
            Await.result(
                vertx.deployVerticle(node, new DeploymentOptions().setConfig(config)), WAIT);
        // a lease refresh slower than the call deadline (a loaded machine) degrades the store for a
        // moment
        Await.until(
            "health UP with metadata ok after start",
            WAIT,
            () ->
                "ok".equals(node.health().getString("metadata"))
                    && "UP".equals(node.health().getString("status")));
        HttpClient http = vertx.createHttpClient();
        int port = node.httpPort();
        Await.until(
            "/health/ready 200 after start",
            WAIT,
            () -> NodeHttp.get(vertx, http, port, "/health/ready").status() == 200);
        etcd.pause();
        Await.until(
            "health DOWN with metadata degraded",
            WAIT,
            () ->
                "degraded".equals(node.health().getString("metadata"))
                    && "DOWN".equals(node.health().getString("status")));
        NodeHttp ready = NodeHttp.get(vertx, http, port, "/health/ready");
        assertEquals(503, ready.status(), ready.body());
        assertEquals("DOWN", ready.check("metadata"));
        assertEquals("UP", ready.check("devices"));
        assertEquals(503, NodeHttp.get(vertx, http, port, "/health").status());
        NodeHttp live = NodeHttp.get(vertx, http, port, "/health/live");
        assertEquals(200, live.status(), "alive while etcd is degraded: " + live.body());
        etcd.resume();
        Await.until(
            "health UP after etcd resumed",
            WAIT,
            () -> "UP".equals(node.health().getString("status")));
        assertEquals(200, NodeHttp.get(vertx, http, port, "/health/ready").status());
        Await.result(http.close(), WAIT);
        Await.result(vertx.undeploy(id), WAIT);
      } finally {
        Await.result(vertx.close(), WAIT);
      }
    }
  }
}
