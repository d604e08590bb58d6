package io.vte.engine.impl;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.ext.unit.Async;
import io.vertx.ext.unit.TestContext;
import io.vertx.ext.unit.TestOptions;
import io.vertx.ext.unit.TestSuite;
import io.vertx.ext.unit.report.ReportOptions;
import io.vte.api.TransferEngine;
import io.vte.handshake.HandshakeClientOptions;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.WireVersions;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.QpInfo;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.Gid;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The wire version range of a real engine's handshake service, as a Vert.x Unit suite run under
 * JUnit 5: peers that announce an older range, a newer one overlapping it, a newer one disjoint
 * from it, or none at all (a release from before ranges) connect over gRPC; the engine answers with
 * the highest common version, records it in its diagnostics, or refuses VERSION_MISMATCH naming
 * both ranges.
 */
@ExtendWith(BlockedThreadGuard.class)
class WireVersionSuiteTest {

  private static final long SUITE_TIMEOUT_MS = 120_000;

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void closeVertx() {
    Await.result(vertx.close(), Duration.ofSeconds(30));
  }

  @Test
  void theEngineUsesTheHighestCommonVersionOrRefusesTyped() {
    TestSuite suite = TestSuite.create("wire version range");
    suite.beforeEach(this::startEngine);
    suite.afterEach(this::closeEngine);
    suite.test("a peer without a range speaks 1", ctx -> connect(ctx, "old:1@p0", 0, 0, 1));
    suite.test("an older range 1..1 gives 1", ctx -> connect(ctx, "old:2@p0", 1, 1, 1));
    suite.test("a newer overlapping range 2..5 gives 2", ctx -> connect(ctx, "new:1@p0", 2, 5, 2));
    suite.test("a newer disjoint range 3..5 is VERSION_MISMATCH", this::disjoint);
    suite
        .run(vertx, new TestOptions().addReporter(new ReportOptions().setTo("console")))
        .awaitSuccess(SUITE_TIMEOUT_MS);
  }

  private void startEngine(TestContext ctx) {
    Async started = ctx.async();
    TransferEngine.create(vertx, EngineFixture.options("wv", 1, 1))
        .onComplete(
            ctx.asyncAssertSuccess(
                engine -> {
                  ctx.put("engine", engine);
                  ctx.put(
                      "client", HandshakeClientPool.create(vertx, new HandshakeClientOptions()));
                  started.complete();
                }));
  }

  private void closeEngine(TestContext ctx) {
    Async closed = ctx.async();
    HandshakeClientPool client = ctx.get("client");
    TransferEngine engine = ctx.get("engine");
    Future.join(client.close(), engine.close()).onComplete(done -> closed.complete());
  }

  /** Sends a Connect from {@code peer} announcing {@code min..max} (0..0: no range). */
  private static Future<ConnectReply> ask(TestContext ctx, String peer, int min, int max) {
    TransferEngine engine = ctx.get("engine");
    HandshakeClientPool client = ctx.get("client");
    ConnectRequest request =
        ConnectRequest.newBuilder()
            .setLocalNicPath(peer)
            .setPeerNicPath(engine.diagnostics().devices().get(0).nicPath())
            .setGid(ByteString.copyFrom(new Gid(0, 0xffff7f000009L).toBytes()))
            .setLid(9)
            .setMtu(4096)
            .setGeneration(7)
            .addQps(QpInfo.newBuilder().setQpNum(9000).setPsn(5))
            .setWireVersionMin(min)
            .setWireVersionMax(max)
            .build();
    return client.connect(engine.diagnostics().serverName(), request, Duration.ofSeconds(10));
  }

  private static void connect(TestContext ctx, String peer, int min, int max, int expected) {
    TransferEngine engine = ctx.get("engine");
    ask(ctx, peer, min, max)
        .onComplete(
            ctx.asyncAssertSuccess(
                reply -> {
                  ctx.assertEquals(ConnectStatus.ACCEPTED, reply.getStatus(), reply.getReason());
                  ctx.assertEquals(expected, reply.getWireVersion());
                  ctx.assertEquals(WireVersions.SPOKEN.min(), reply.getWireVersionMin());
                  ctx.assertEquals(WireVersions.SPOKEN.max(), reply.getWireVersionMax());
                  ctx.assertEquals(
                      expected,
                      engine.diagnostics().wireVersions().get(peer),
                      "the agreed version shows in the diagnostics: "
                          + engine.diagnostics().wireVersions());
                }));
  }

  private void disjoint(TestContext ctx) {
    TransferEngine engine = ctx.get("engine");
    ask(ctx, "new:2@p0", 3, 5)
        .onComplete(
            ctx.asyncAssertSuccess(
                reply -> {
                  ctx.assertEquals(ConnectStatus.VERSION_MISMATCH, reply.getStatus());
                  ctx.assertTrue(
                      reply.getReason().contains("this node speaks " + WireVersions.SPOKEN),
                      reply.getReason());
                  ctx.assertTrue(
                      reply.getReason().contains("new:2@p0 speaks 3..5"), reply.getReason());
                  ctx.assertEquals(WireVersions.SPOKEN.max(), reply.getWireVersionMax());
                  ctx.assertTrue(
                      engine.diagnostics().wireVersions().isEmpty(),
                      "no endpoint for a peer it cannot speak to");
                }));
  }
}
