package io.vte.vertx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.http.HttpClient;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.FaultInjector;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Two engine verticles in one Vert.x, driven only through the event bus and HTTP. */
@ExtendWith(BlockedThreadGuard.class)
class TransferEngineVerticleTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int BLOCK = 32 * 1024;
  private static final int INSTANCES = 4;
  private static final int ROUNDS = 12;

  private ResourceSnapshot before;
  private VteMetrics metrics;
  private Vertx vertx;
  private TransferEngineVerticle nodeA;
  private String deploymentA;
  private final List<String> deployments = new ArrayList<>();
  private TransferEngineVerticle nodeB;
  private TransferEngineClient a;
  private TransferEngineClient b;

  /**
   * One full cycle first, so JVM-wide lazily started threads (cleaners, pools) are in every
   * baseline.
   */
  @BeforeAll
  static void warmUp() {
    TransferEngineVerticleTest t = new TransferEngineVerticleTest();
    t.start();
    t.teardown();
  }

  @BeforeEach
  void start() {
    before = ResourceSnapshot.take();
    metrics = VteMetrics.createVertx(new VertxOptions());
    vertx = metrics.vertx();
    nodeA = new TransferEngineVerticle();
    nodeB = new TransferEngineVerticle();
    deploymentA =
        Await.result(
            vertx.deployVerticle(
                nodeA,
                new DeploymentOptions().setConfig(config("va", "node.a").put("httpPort", 0))),
            WAIT);
    deployments.add(deploymentA);
    deployments.add(
        Await.result(
            vertx.deployVerticle(nodeB, new DeploymentOptions().setConfig(config("vb", "node.b"))),
            WAIT));
    a = new TransferEngineClient(vertx.eventBus(), "node.a");
    b = new TransferEngineClient(vertx.eventBus(), "node.b");
  }

  private static JsonObject config(String device, String address) {
    return new JsonObject()
        .put("devices", new JsonArray().add(device + "0@127.0.0.1").add(device + "1@127.0.0.1"))
        .put("workersPerContext", 1)
        .put("address", address);
  }

  @AfterEach
  void closeWithoutLeaks() {
    teardown();
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
  }

  private void teardown() {
    // undeploy first: Vert.x close would undeploy the engine's owner verticles in parallel with the
    // engine verticle
    for (int i = deployments.size() - 1; i >= 0; i--) {
      Await.result(vertx.undeploy(deployments.get(i)).recover(e -> Future.succeededFuture()), WAIT);
    }
    Await.result(vertx.close(), WAIT);
    metrics.registry().close();
  }

  /**
   * A client verticle deployed with several instances: each writes its own blocks into node B's
   * pool.
   */
  public static final class Writer extends VerticleBase {
    /** Instantiated by Vert.x. */
    public Writer() {}

    @Override
    public Future<?> start() {
      TransferEngineClient client = new TransferEngineClient(vertx.eventBus(), "node.a");
      JsonObject conf = config();
      String peer = conf.getString("peer");
      long pool = conf.getLong("pool");
      String name = "src-" + deploymentID() + "-" + System.identityHashCode(this);
      Promise<Void> done = Promise.promise();
      client
          .register(name, (long) conf.getInteger("slots") * BLOCK, "cpu:0")
          .onComplete(
              r -> {
                if (r.failed()) {
                  done.fail(r.cause());
                } else {
                  vertx
                      .eventBus()
                      .<JsonObject>consumer(
                          "writer.go", m -> round(client, name, peer, pool, m.body(), m::reply));
                  done.complete();
                }
              });
      return done.future();
    }

    private static void round(
        TransferEngineClient client,
        String name,
        String peer,
        long pool,
        JsonObject job,
        java.util.function.Consumer<Object> reply) {
      int slot = job.getInteger("slot");
      int round = job.getInteger("round");
      // one local block per slot: jobs of one instance overlap in time
      client
          .write(name, (long) slot * BLOCK, pattern(slot, round))
          .compose(
              v ->
                  client.submit(
                      new JsonArray()
                          .add(
                              TransferEngineClient.request(
                                  "WRITE",
                                  name,
                                  (long) slot * BLOCK,
                                  peer,
                                  pool + (long) slot * BLOCK,
                                  BLOCK)),
                      Duration.ofSeconds(30)))
          .onComplete(
              ar ->
                  reply.accept(
                      ar.succeeded()
                          ? ar.result()
                          : new JsonObject().put("error", ar.cause().getMessage())));
    }
  }

  static Buffer pattern(int slot, int round) {
    byte[] bytes = new byte[BLOCK];
    for (int i = 0; i < BLOCK; i++) {
      bytes[i] = (byte) (slot * 31 + round * 7 + i * 13);
    }
    return Buffer.buffer(bytes);
  }

  @Test
  void severalClientInstancesSubmitConcurrentlyAndEveryByteArrives() {
    String peer = nodeB.engine().serverName();
    int slots = INSTANCES * 4;
    JsonObject pool = Await.result(b.register("pool", (long) slots * BLOCK, "cpu:0"), WAIT);
    deployments.add(
        Await.result(
            vertx.deployVerticle(
                Writer.class.getName(),
                new DeploymentOptions()
                    .setInstances(INSTANCES)
                    .setConfig(
                        new JsonObject()
                            .put("peer", peer)
                            .put("pool", pool.getLong("address"))
                            .put("slots", slots))),
            WAIT));
    for (int round = 0; round < ROUNDS; round++) {
      List<Future<Object>> replies = new ArrayList<>();
      for (int slot = 0; slot < slots; slot++) {
        // round-robin delivery spreads the jobs over every Writer instance, which submit
        // concurrently
        replies.add(
            vertx
                .eventBus()
                .request("writer.go", new JsonObject().put("slot", slot).put("round", round))
                .map(m -> m.body()));
      }
      List<Object> results = Await.result(Future.all(replies).map(cf -> cf.list()), WAIT);
      for (Object r : results) {
        JsonObject j = (JsonObject) r;
        assertEquals(true, j.getBoolean("allCompleted"), j.encode());
        assertEquals(BLOCK, j.getLong("bytes"));
        assertEquals("COMPLETED", j.getJsonArray("requests").getJsonObject(0).getString("status"));
      }
      for (int slot = 0; slot < slots; slot++) {
        assertTrue(
            pattern(slot, round)
                .equals(Await.result(b.read("pool", (long) slot * BLOCK, BLOCK), WAIT)),
            "bytes differ at slot " + slot + " round " + round);
      }
    }
    JsonObject stats = Await.result(a.stats(), WAIT);
    assertEquals((long) slots * ROUNDS * BLOCK, stats.getLong("bytes"));
    assertEquals(INSTANCES, stats.getInteger("buffers"));
    assertEquals(0L, stats.getLong("batchesFailed"));
  }

  @Test
  void readFromPeerAndNotifyThroughTheBus() {
    String peer = nodeB.engine().serverName();
    JsonObject remote = Await.result(b.register("remote", 4096, "cpu:0"), WAIT);
    Await.result(b.write("remote", 100, Buffer.buffer("hello over the bus")), WAIT);
    Await.result(a.register("local", 4096, "cpu:0"), WAIT);
    JsonObject seg = Await.result(a.openSegment(peer), WAIT);
    assertEquals(peer, seg.getString("serverName"));
    assertEquals(2, seg.getJsonArray("devices").size());
    assertTrue(
        seg.getJsonArray("buffers").stream()
            .anyMatch(o -> ((JsonObject) o).getLong("address").equals(remote.getLong("address"))),
        seg.encode());
    JsonObject r =
        Await.result(
            a.submit(
                new JsonArray()
                    .add(
                        TransferEngineClient.request(
                            "READ", "local", 0, peer, remote.getLong("address") + 100, 18)),
                Duration.ofSeconds(30)),
            WAIT);
    assertTrue(r.getBoolean("allCompleted"), r.encode());
    assertEquals("hello over the bus", Await.result(a.read("local", 0, 18), WAIT).toString());

    List<JsonObject> received = new ArrayList<>();
    Await.result(b.notifications(received::add).completion(), WAIT);
    Await.result(a.notify(peer, "block.ready", Buffer.buffer("k=1")), WAIT);
    Await.until("notification published on node B", WAIT, () -> received.size() == 1);
    assertEquals("block.ready", received.get(0).getString("topic"));
    assertEquals("k=1", received.get(0).getBuffer("payload").toString());
    assertEquals(nodeA.engine().serverName(), received.get(0).getString("from"));
  }

  @Test
  void badMessagesGetTypedFailuresNamingTheValue() {
    Await.result(a.register("buf", 1024, "cpu:0"), WAIT);
    assertFails(ErrorCode.INVALID_ARGUMENT, "already registered", a.register("buf", 1024, "cpu:0"));
    assertFails(ErrorCode.INVALID_ARGUMENT, "-5", a.register("neg", -5, "cpu:0"));
    assertFails(ErrorCode.NOT_REGISTERED, "'nope'", a.unregister("nope"));
    assertFails(ErrorCode.NOT_REGISTERED, "'nope'", a.read("nope", 0, 1));
    assertFails(
        ErrorCode.OUT_OF_RANGE, "[1020, +8)", a.write("buf", 1020, Buffer.buffer(new byte[8])));
    assertFails(ErrorCode.OUT_OF_RANGE, "[-1, +1)", a.read("buf", -1, 1));
    assertFails(
        ErrorCode.INVALID_ARGUMENT, "'requests'", a.submit(new JsonArray(), Duration.ofSeconds(5)));
    String peer = nodeB.engine().serverName();
    assertFails(
        ErrorCode.INVALID_ARGUMENT,
        "COPY",
        a.submit(
            new JsonArray().add(TransferEngineClient.request("COPY", "buf", 0, peer, 1, 8)),
            Duration.ofSeconds(5)));
    assertFails(
        ErrorCode.NOT_REGISTERED,
        "'ghost'",
        a.submit(
            new JsonArray().add(TransferEngineClient.request("READ", "ghost", 0, peer, 1, 8)),
            Duration.ofSeconds(5)));
    assertFails(
        ErrorCode.INVALID_ARGUMENT,
        "'length'",
        a.submit(
            new JsonArray()
                .add(
                    TransferEngineClient.request("READ", "buf", 0, peer, 1, 8)
                        .put("length", "eight")),
            Duration.ofSeconds(5)));
    assertFails(ErrorCode.PEER_UNREACHABLE, "127.0.0.1:1", a.openSegment("127.0.0.1:1"));
    assertFails(
        ErrorCode.INVALID_ARGUMENT,
        "'segment'",
        vertx
            .eventBus()
            .request("node.a.openSegment", new JsonObject())
            .map(m -> (JsonObject) m.body())
            .recover(e -> Future.failedFuture(EngineBus.toException(e))));
    Throwable raw = Await.failure(vertx.eventBus().request("node.a.stats", "not json"), WAIT);
    ReplyException reply = assertInstanceOf(ReplyException.class, raw);
    assertEquals(EngineBus.failureCode(ErrorCode.INVALID_ARGUMENT), reply.failureCode());
    assertTrue(reply.getMessage().contains("String"), reply.getMessage());
    // a remote address outside every registered buffer of the peer: typed, nothing written
    JsonObject remote = Await.result(b.register("small", 64, "cpu:0"), WAIT);
    Future<JsonObject> outside =
        a.submit(
            new JsonArray()
                .add(
                    TransferEngineClient.request(
                        "WRITE", "buf", 0, peer, remote.getLong("address") + 32, 64)),
            Duration.ofSeconds(10));
    assertFails(ErrorCode.OUT_OF_RANGE, null, outside);
    assertEquals(Buffer.buffer(new byte[64]), Await.result(b.read("small", 0, 64), WAIT));
    // the verticle still serves after all that
    assertEquals(1, Await.result(a.stats(), WAIT).getInteger("buffers"));
  }

  private static void assertFails(ErrorCode code, String fragment, Future<?> f) {
    VteException e =
        assertInstanceOf(VteException.class, EngineBus.toException(Await.failure(f, WAIT)));
    assertEquals(code, e.code(), e.getMessage());
    if (fragment != null) {
      assertTrue(
          e.getMessage().contains(fragment),
          "message should name '" + fragment + "': " + e.getMessage());
    }
  }

  @Test
  void metricsEndpointHasTheVteMetersAndHealthFollowsAPortDownFault() {
    String peer = nodeB.engine().serverName();
    JsonObject remote = Await.result(b.register("m", 1 << 20, "cpu:0"), WAIT);
    Await.result(a.register("m", 1 << 20, "cpu:0"), WAIT);
    JsonObject r =
        Await.result(
            a.submit(
                new JsonArray()
                    .add(
                        TransferEngineClient.request(
                            "WRITE", "m", 0, peer, remote.getLong("address"), 1 << 20)),
                Duration.ofSeconds(30)),
            WAIT);
    assertTrue(r.getBoolean("allCompleted"), r.encode());

    HttpClient http = vertx.createHttpClient();
    int port = nodeA.httpPort();
    String metricsText = NodeHttp.get(vertx, http, port, "/metrics").body();
    for (String meter :
        List.of(
            "vte_engine_bytes_total",
            "vte_engine_slices_total",
            "vte_engine_retries_total",
            "vte_owner_handshakes_active_total",
            "vte_owner_slices_failed_total",
            "vte_owner_stale_replies_dropped_total",
            "vte_owner_endpoints_alive",
            "vte_owner_cq_poll_gap_max_seconds",
            "vte_vertx_batch_latency_seconds",
            "vte_vertx_batches_failed_total")) {
      assertTrue(metricsText.contains(meter), "missing " + meter);
    }
    assertTrue(
        metricsText.contains(
            "vte_engine_bytes_total{engine=\""
                + nodeA.engine().diagnostics().metricsLabel()
                + "\"} 1048576"),
        "bytes counter should show the 1 MiB written");
    assertEveryVteMeterHasHelpInBaseUnits(metricsText);

    NodeHttp up = NodeHttp.get(vertx, http, port, "/health");
    assertEquals(200, up.status());
    assertEquals("UP", up.json().getString("status"));
    assertEquals(200, NodeHttp.get(vertx, http, port, "/health/live").status());
    NodeHttp ready = NodeHttp.get(vertx, http, port, "/health/ready");
    assertEquals(200, ready.status(), ready.body());
    assertEquals(
        List.of("UP", "UP", "UP"),
        List.of(ready.check("engine"), ready.check("devices"), ready.check("metadata")));
    FaultInjector faults = nodeA.engine().diagnostics().faultInjector().orElseThrow();
    faults.portDown("va1");
    // the port event reaches the health check through the device's event thread and the owners:
    // await it
    NodeHttp down =
        Await.value(
            "health 503 after port down",
            WAIT,
            () -> NodeHttp.get(vertx, http, port, "/health"),
            reply -> reply.status() == 503);
    JsonObject h = down.json();
    assertEquals("DOWN", h.getString("status"));
    // a port down: not ready, still alive (a liveness probe must not restart the node)
    NodeHttp notReady = NodeHttp.get(vertx, http, port, "/health/ready");
    assertEquals(503, notReady.status(), notReady.body());
    assertEquals("DOWN", notReady.check("devices"));
    assertEquals("UP", notReady.check("metadata"));
    NodeHttp live = NodeHttp.get(vertx, http, port, "/health/live");
    assertEquals(200, live.status(), live.body());
    assertEquals("UP", live.check("engine"));
    assertEquals(
        List.of(true, false),
        h.getJsonArray("devices").stream().map(d -> ((JsonObject) d).getBoolean("up")).toList());
    assertEquals("DOWN", Await.result(a.health(), WAIT).getString("status"));
    faults.portUp("va1");
    Await.until(
        "health UP again after port up",
        WAIT,
        () -> NodeHttp.get(vertx, http, port, "/health").status() == 200);
    assertEquals(200, NodeHttp.get(vertx, http, port, "/health/ready").status());
    assertEquals(404, NodeHttp.get(vertx, http, port, "/nothing").status());
    Await.result(http.close(), WAIT);
  }

  /**
   * Every {@code vte_*} family has a non-empty HELP line, and none is in a unit other than the base
   * ones.
   */
  private static void assertEveryVteMeterHasHelpInBaseUnits(String metricsText) {
    java.util.Set<String> typed = new java.util.TreeSet<>();
    java.util.Set<String> helped = new java.util.TreeSet<>();
    for (String line : metricsText.split("\n")) {
      String[] f = line.split(" ", 4);
      if (f.length >= 3 && f[0].equals("#") && f[2].startsWith("vte_")) {
        if (f[1].equals("TYPE")) {
          typed.add(f[2]);
        } else if (f[1].equals("HELP") && f.length == 4 && !f[3].isBlank()) {
          helped.add(f[2]);
        }
      }
    }
    assertTrue(typed.size() >= 20, "vte_ meter families: " + typed);
    assertEquals(typed, helped, "vte_ meter families with a HELP text");
    for (String name : typed) {
      assertFalse(
          name.contains("milliseconds")
              || name.contains("nanoseconds")
              || name.contains("microseconds"),
          name + " is not in base units (seconds)");
    }
  }

  @Test
  void badConfigFailsTheDeploymentWithATypedError() {
    Throwable noDevices =
        Await.failure(
            vertx.deployVerticle(
                new TransferEngineVerticle(),
                new DeploymentOptions()
                    .setConfig(
                        new JsonObject()
                            .put("address", "bad")
                            .put("devices", new JsonArray().add(" ")))),
            WAIT);
    assertEquals(
        ErrorCode.INVALID_CONFIGURATION, assertInstanceOf(VteException.class, noDevices).code());
    assertTrue(noDevices.getMessage().contains("devices"), noDevices.getMessage());
    Throwable unknown =
        Await.failure(
            vertx.deployVerticle(
                new TransferEngineVerticle(),
                new DeploymentOptions().setConfig(config("vc", "bad").put("colour", "red"))),
            WAIT);
    assertTrue(unknown.getMessage().contains("colour"), unknown.getMessage());
    Throwable port =
        Await.failure(
            vertx.deployVerticle(
                new TransferEngineVerticle(),
                new DeploymentOptions()
                    .setConfig(config("vd", "bad").put("httpPort", nodeA.httpPort()))),
            WAIT);
    assertEquals(
        ErrorCode.INVALID_CONFIGURATION, assertInstanceOf(VteException.class, port).code());
    assertTrue(port.getMessage().contains(Integer.toString(nodeA.httpPort())), port.getMessage());
    // the failed deployments closed their engines: nothing answers on their address
    assertFails(
        ErrorCode.ENGINE_CLOSED, null, new TransferEngineClient(vertx.eventBus(), "bad").stats());
  }

  @Test
  void undeployClosesTheEngineAndLaterRequestsFailTyped() {
    Await.result(a.register("x", 4096, "cpu:0"), WAIT);
    Await.result(vertx.undeploy(deploymentA), WAIT);
    assertEquals("DOWN", nodeA.health().getString("status"));
    assertFails(ErrorCode.ENGINE_CLOSED, null, a.stats());
  }
}
