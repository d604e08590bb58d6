package io.vte.vertx;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Health follows the metadata store: DOWN while etcd is unreachable, UP again when it is back. */
@ExtendWith(BlockedThreadGuard.class)
class HealthMetadataTest {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void healthIsDownWhileEtcdIsPausedAndUpAfterwards() {
    try (EtcdServer etcd = EtcdServer.start()) {
      Vertx vertx = Vertx.vertx();
      try {
        TransferEngineVerticle node = new TransferEngineVerticle();
        JsonObject config = new JsonObject().put("devices", new JsonArray().add("hm0@127.0.0.1"))
            .put("workersPerContext", 1).put("metadataUri", etcd.uri()).put("segmentName", "health-node")
            .put("metadata", new JsonObject().put("healthCheckIntervalMs", 200).put("callDeadlineMs", 1000));
        String id = Await.result(vertx.deployVerticle(node, new DeploymentOptions().setConfig(config)), WAIT);
        // a lease refresh slower than the call deadline (a loaded machine) degrades the store for a moment
        Await.until("health UP with metadata ok after start", WAIT,
            () -> "ok".equals(node.health().getString("metadata")) && "UP".equals(node.health().getString("status")));
        etcd.pause();
        Await.until("health DOWN with metadata degraded", WAIT,
            () -> "degraded".equals(node.health().getString("metadata")) && "DOWN".equals(node.health().getString("status")));
        etcd.resume();
        Await.until("health UP after etcd resumed", WAIT, () -> "UP".equals(node.health().getString("status")));
        Await.result(vertx.undeploy(id), WAIT);
      } finally {
        Await.result(vertx.close(), WAIT);
      }
    }
  }
}
