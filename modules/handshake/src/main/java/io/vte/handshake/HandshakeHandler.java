package io.vte.handshake;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.handshake.proto.WatchDevicesRequest;

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

  /**
   * Starts pushing the node's device states to a watcher: a snapshot first, then every change and a
   * heartbeat at the period the request asks for, until the stream ends. The default pushes nothing
   * and ends the stream with INVALID_ARGUMENT (a node that does not track devices).
   *
   * @param request a validated request; its auth token has been cleared
   * @param stream where the states go
   */
  default void watchDevices(WatchDevicesRequest request, PushStream<DeviceStates> stream) {
    stream.fail(
        new VteException(ErrorCode.INVALID_ARGUMENT, "this node does not push device states"));
  }
}
