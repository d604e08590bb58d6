package io.vte.handshake;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.handshake.proto.HandshakeGrpcClient;
import io.vte.handshake.proto.HandshakeGrpcService;
import io.vte.handshake.proto.HandshakeProto;

/**
 * Initializes the generated protobuf and gRPC classes of the handshake protocol once per JVM, on a
 * worker thread. Their static initializers parse and cross-link the protocol's descriptors: a few
 * hundred milliseconds of CPU on an idle machine, and on a loaded one seconds, which on an event
 * loop blocked the engine's first start (the blocked-thread checker saw 2 to 8.5 s) and made a
 * peer's first GetSegment miss its deadline.
 */
final class ProtocolClasses {

  private static volatile boolean initialized;

  private ProtocolClasses() {}

  /**
   * @param vertx the Vert.x instance whose worker pool runs the initializers
   * @return completes once the classes are initialized; at once after the first time
   */
  static Future<Void> initialize(Vertx vertx) {
    if (initialized) {
      return Future.succeededFuture();
    }
    return vertx.executeBlocking(
        () -> {
          ClassLoader loader = ProtocolClasses.class.getClassLoader();
          HandshakeProto.getDescriptor();
          Class.forName(HandshakeGrpcService.class.getName(), true, loader);
          Class.forName(HandshakeGrpcClient.class.getName(), true, loader);
          initialized = true;
          return null;
        },
        false);
  }
}
