package io.vte.handshake;

import io.vertx.core.Future;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;

/**
 * Implemented by the engine: what the {@link HandshakeServer} does with each call once it has been
 * authenticated (when auth is on) and validated by {@link HandshakeValidator}.
 *
 * <p>Methods are called on the server's event loop and must not block. A failed Future carrying a
 * {@link io.vte.api.VteException} is answered with the matching gRPC status and its message.
 */
public interface HandshakeHandler {

  /**
   * Answers an endpoint handshake.
   *
   * @param request a validated request; its auth token has been cleared
   * @return the reply; a non-ACCEPTED status is a normal reply
   */
  Future<ConnectReply> connect(ConnectRequest request);

  /**
   * Answers a segment descriptor query.
   *
   * @param request a validated request; its auth token has been cleared
   * @return the descriptor, or a failure with {@code SEGMENT_NOT_FOUND}
   */
  Future<SegmentDescriptor> getSegment(GetSegmentRequest request);

  /**
   * Delivers an application notification.
   *
   * @param request a validated request; its auth token has been cleared
   * @return whether it was accepted
   */
  Future<NotifyReply> notify(NotifyRequest request);
}
