package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.MarkdownSnippets;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * README.md's verticle example, the method {@link #writeOverTheBus} below, run as printed against a
 * second engine verticle on the same Vert.x: the bytes it writes arrive in the peer's buffer, and
 * the README's block is this source's (the test fails when either drifts).
 */
@ExtendWith(BlockedThreadGuard.class)
class ReadmeVerticleExampleTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Path SOURCE =
      Path.of("src/test/java/io/vte/vertx/ReadmeVerticleExampleTest.java");
  private static final Path README = Path.of("../../README.md");

  // README:verticle-example:begin
  /** Deploys an engine verticle, then WRITEs a greeting through its event-bus client to a peer. */
  static Future<JsonObject> writeOverTheBus(Vertx vertx, String peer) {
    JsonObject config =
        new JsonObject() // any EngineOptions key; here one soft device on loopback
            .put("devices", new JsonArray().add("nic0@127.0.0.1"))
            .put("address", "vte.engine"); // the event-bus prefix
    return vertx
        .deployVerticle(new TransferEngineVerticle(), new DeploymentOptions().setConfig(config))
        .compose(
            deployed -> {
              TransferEngineClient client =
                  new TransferEngineClient(vertx.eventBus(), "vte.engine");
              Buffer greeting = Buffer.buffer("hello, peer");
              return client
                  .register("blocks", 1 << 20, "cpu:0") // the verticle owns the memory
                  .compose(registered -> client.write("blocks", 0, greeting))
                  .compose(written -> client.openSegment(peer))
                  .compose(
                      segment -> {
                        JsonObject target = segment.getJsonArray("buffers").getJsonObject(0);
                        JsonObject write =
                            TransferEngineClient.request(
                                "WRITE",
                                "blocks",
                                0,
                                peer,
                                target.getLong("address"),
                                greeting.length());
                        return client.submit(new JsonArray().add(write), Duration.ofSeconds(5));
                      });
            });
  }

  // README:verticle-example:end

  @Test
  void theReadmeVerticleExampleWritesIntoAPeerAsPrinted() throws Exception {
    assertEquals(
        MarkdownSnippets.marked(SOURCE, "README:verticle-example", "  "),
        MarkdownSnippets.javaBlockAfter(README, "## As a verticle"),
        "README.md's verticle block is ReadmeVerticleExampleTest.writeOverTheBus");

    Vertx vertx = Vertx.vertx();
    try {
      TransferEngineClient peer = deployPeer(vertx);
      String serverName = Await.result(peer.stats(), WAIT).getString("serverName");

      JsonObject result = Await.result(writeOverTheBus(vertx, serverName), WAIT);

      assertTrue(result.getBoolean("allCompleted"), result.encode());
      Buffer arrived = Await.result(peer.read("pool", 0, "hello, peer".length()), WAIT);
      assertEquals("hello, peer", arrived.toString(StandardCharsets.UTF_8));
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }

  /**
   * Deploys the example's peer: an engine verticle on the bus prefix {@code peer} with a 64 KiB
   * buffer {@code pool} for the example to write into.
   *
   * @param vertx where to deploy it
   * @return its client
   */
  static TransferEngineClient deployPeer(Vertx vertx) {
    JsonObject peerConfig =
        new JsonObject()
            .put("devices", new JsonArray().add("peer0@127.0.0.1"))
            .put("address", "peer");
    Await.result(
        vertx.deployVerticle(
            new TransferEngineVerticle(), new DeploymentOptions().setConfig(peerConfig)),
        WAIT);
    TransferEngineClient peer = new TransferEngineClient(vertx.eventBus(), "peer");
    Await.result(peer.register("pool", 1 << 16, "cpu:0"), WAIT);
    return peer;
  }
}
