package io.vte.engine.impl.handshake;

import io.vertx.core.Future;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import java.time.Duration;

/**
 * How an owner sends an active {@code Connect}: the narrow view of the handshake client it needs,
 * so tests can control every reply (later, never, failed, stale). In the engine it is the handshake
 * client pool: {@code HandshakeChannel channel = pool::connect}.
 */
@FunctionalInterface
public interface HandshakeChannel {

  /**
   * Sends a connect request. Must not block; the future may complete on any thread.
   *
   * @param serverName the peer's handshake server, {@code host:port}
   * @param request the request
   * @param deadline how long the call may take
   * @return the peer's reply (a non-ACCEPTED status is a normal reply), or a failure ({@link
   *     io.vte.api.VteException} with PEER_UNREACHABLE, TIMED_OUT, ...)
   */
  Future<ConnectReply> connect(String serverName, ConnectRequest request, Duration deadline);
}
