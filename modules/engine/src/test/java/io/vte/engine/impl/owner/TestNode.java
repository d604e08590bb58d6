package io.vte.engine.impl.owner;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.connect.PeerLiveness;
import io.vte.handshake.HandshakeClientOptions;
import io.vte.handshake.HandshakeClientPool;
import io.vte.handshake.HandshakeHandler;
import io.vte.handshake.HandshakeServer;
import io.vte.handshake.HandshakeServerOptions;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.verbs.VerbsContext;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A minimal node playing the engine layer for owner integration tests: a real handshake server and
 * client pool, local contexts over the given devices, and the passive handler wired between them.
 */
final class TestNode implements HandshakeHandler {

  final Vertx vertx;
  final List<LocalContext> contexts = new CopyOnWriteArrayList<>();
  private volatile PassiveConnectHandler passive = new PassiveConnectHandler(List.of());
  private HandshakeServer server;
  private HandshakeClientPool pool;

  private TestNode(Vertx vertx) {
    this.vertx = vertx;
  }

  static Future<TestNode> start(Vertx vertx) {
    TestNode node = new TestNode(vertx);
    node.pool = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
    return HandshakeServer.start(vertx, new HandshakeServerOptions().setPort(0), node)
        .map(
            s -> {
              node.server = s;
              return node;
            });
  }

  String serverName() {
    return server.serverName();
  }

  Future<LocalContext> addDevice(VerbsContext device, OwnerConfig config) {
    return LocalContext.open(
            vertx,
            device,
            config,
            serverName(),
            pool::connect,
            NanoClock.SYSTEM,
            new PeerLiveness(config.peerProbeAfter().toNanos()))
        .onSuccess(
            ctx -> {
              contexts.add(ctx);
              passive = new PassiveConnectHandler(new ArrayList<>(contexts));
            });
  }

  Future<Void> removeDevice(LocalContext ctx) {
    contexts.remove(ctx);
    passive = new PassiveConnectHandler(new ArrayList<>(contexts));
    return ctx.close();
  }

  @Override
  public Future<ConnectReply> connect(ConnectRequest request) {
    return passive.connect(request);
  }

  @Override
  public Future<SegmentDescriptor> getSegment(GetSegmentRequest request) {
    return Future.failedFuture(
        new VteException(ErrorCode.SEGMENT_NOT_FOUND, "test node has no segments"));
  }

  @Override
  public Future<NotifyReply> notify(NotifyRequest request) {
    return Future.succeededFuture(NotifyReply.newBuilder().setAccepted(false).build());
  }

  Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    for (LocalContext ctx : contexts) {
      closing.add(ctx.close());
    }
    contexts.clear();
    return Future.join(closing)
        .transform(ignored -> pool.close())
        .transform(ignored -> server.close());
  }
}
