package io.vte.examples.range;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.OnEventLoop;
import io.vte.vertx.TransferEngineClient;
import io.vte.vertx.TransferEngineVerticle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A peer node with 2 MiB of known bytes; the range server serves slices of it over HTTP. */
@ExtendWith(BlockedThreadGuard.class)
class RangeServerTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int SIZE = 2 << 20;

  private final List<String> deployments = new ArrayList<>();
  private Vertx vertx;
  private HttpClient http;
  private String peer;
  private int port;
  private byte[] content;

  private record Reply(int status, Buffer body) {}

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    TransferEngineVerticle peerNode = new TransferEngineVerticle();
    deployments.add(
        Await.result(
            vertx.deployVerticle(peerNode, new DeploymentOptions().setConfig(engine("peer"))),
            WAIT));
    peer = peerNode.engine().serverName();
    TransferEngineClient peerClient = new TransferEngineClient(vertx.eventBus(), "peer");
    Await.result(peerClient.register("data", SIZE, "cpu:0"), WAIT);
    content = new byte[SIZE];
    for (int i = 0; i < SIZE; i++) {
      content[i] = (byte) (i * 31 + (i >>> 11));
    }
    Await.result(peerClient.write("data", 0, Buffer.buffer(content)), WAIT);
    deployments.add(
        Await.result(
            vertx.deployVerticle(
                new TransferEngineVerticle(), new DeploymentOptions().setConfig(engine("range"))),
            WAIT));
    RangeServerVerticle server = new RangeServerVerticle();
    deployments.add(
        Await.result(
            vertx.deployVerticle(
                server,
                new DeploymentOptions()
                    .setConfig(
                        new JsonObject()
                            .put("engine", "range")
                            .put("httpPort", 0)
                            .put("slots", 4))),
            WAIT));
    port = server.port();
    http = vertx.createHttpClient();
  }

  private static JsonObject engine(String name) {
    return new JsonObject()
        .put("devices", new JsonArray().add(name + "0@127.0.0.1").add(name + "1@127.0.0.1"))
        .put("workersPerContext", 1)
        .put(TransferEngineVerticle.ADDRESS, name);
  }

  @AfterEach
  void close() {
    for (int i = deployments.size() - 1; i >= 0; i--) {
      Await.result(vertx.undeploy(deployments.get(i)), WAIT);
    }
    Await.result(vertx.close(), WAIT);
  }

  private Future<Reply> get(String uri) {
    return OnEventLoop.call(
        vertx,
        () ->
            http.request(HttpMethod.GET, port, "127.0.0.1", uri)
                .compose(req -> req.send())
                .compose(resp -> resp.body().map(body -> new Reply(resp.statusCode(), body))));
  }

  private void assertRange(Reply r, long offset, int length) {
    assertEquals(200, r.status(), r.body().toString());
    assertEquals(length, r.body().length());
    for (int i = 0; i < length; i++) {
      if (r.body().getByte(i) != content[(int) offset + i]) {
        throw new AssertionError("byte " + (offset + i) + " differs");
      }
    }
  }

  @Test
  void servesExactRangesIncludingConcurrentOnes() {
    long[][] ranges = {
      {0, 1}, {0, 4096}, {12345, 777}, {SIZE - 100, 100}, {SIZE - (1 << 20), 1 << 20}
    };
    for (long[] r : ranges) {
      assertRange(
          Await.result(
              get("/segments/" + peer + "/bytes?offset=" + r[0] + "&length=" + r[1]), WAIT),
          r[0],
          (int) r[1]);
    }
    // more concurrent requests than staging slots: each is served or told to retry, none is
    // corrupted
    List<Future<Reply>> replies = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      replies.add(get("/segments/" + peer + "/bytes?offset=" + (i * 65536L + i) + "&length=65536"));
    }
    int served = 0;
    for (int i = 0; i < 16; i++) {
      Reply r = Await.result(replies.get(i), WAIT);
      if (r.status() == 503) {
        assertTrue(r.body().toString().startsWith("BUSY"), r.body().toString());
        continue;
      }
      assertRange(r, i * 65536L + i, 65536);
      served++;
    }
    assertTrue(served >= 4, "at least the slot count was served: " + served);
  }

  @Test
  void badRequestsGetTheRightStatusAndOneLine() {
    String base = "/segments/" + peer + "/bytes";
    assertStatus(400, "offset=-1", get(base + "?offset=-1&length=8"));
    assertStatus(400, "length=abc", get(base + "?offset=0&length=abc"));
    assertStatus(400, "length=null", get(base + "?offset=0"));
    assertStatus(400, "length=2097152", get(base + "?offset=0&length=" + (2 << 20)));
    assertStatus(416, "[2097150, +8)", get(base + "?offset=" + (SIZE - 2) + "&length=8"));
    assertStatus(416, "no buffer 3", get(base + "?offset=0&length=8&buffer=3"));
    assertStatus(502, "127.0.0.1:1", get("/segments/127.0.0.1:1/bytes?offset=0&length=8"));
    assertStatus(404, "/nothing", get("/nothing"));
    // still serving after the errors
    assertRange(Await.result(get(base + "?offset=5&length=5"), WAIT), 5, 5);
  }

  private static void assertStatus(int status, String fragment, Future<Reply> reply) {
    Reply r = Await.result(reply, WAIT);
    String body = r.body().toString();
    assertEquals(status, r.status(), body);
    assertTrue(body.contains(fragment), "body should name '" + fragment + "': " + body);
    assertEquals(1, body.lines().count(), body);
  }
}
