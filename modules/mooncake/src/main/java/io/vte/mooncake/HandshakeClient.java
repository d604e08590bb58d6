package io.vte.mooncake;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;

/**
 * Sends one request frame to a Mooncake handshake listener and reads its reply on a connection of
 * its own, as Mooncake does: a failed connect is PEER_UNREACHABLE, no reply within the deadline
 * TIMED_OUT, a reply of another type or a malformed one PROTOCOL_ERROR.
 */
final class HandshakeClient {

  private final Vertx vertx;
  private final NetClient client;
  private final MooncakeOptions options;

  HandshakeClient(Vertx vertx, NetClient client, MooncakeOptions options) {
    this.vertx = vertx;
    this.client = client;
    this.options = options;
  }

  /**
   * @return the reply to {@code request} from {@code host:port}
   */
  Future<HandshakeFrame> call(String host, int port, HandshakeFrame request, Duration deadline) {
    String peer = host + ":" + port;
    return client
        .connect(port, host)
        .recover(
            e ->
                Future.failedFuture(
                    new VteException(
                        ErrorCode.PEER_UNREACHABLE,
                        "Mooncake handshake listener " + peer + ": " + e.getMessage(),
                        e)))
        .compose(socket -> exchange(socket, peer, request, deadline));
  }

  private Future<HandshakeFrame> exchange(
      NetSocket socket, String peer, HandshakeFrame request, Duration deadline) {
    Promise<HandshakeFrame> reply = Promise.promise();
    HandshakeFrame.Reader reader = new HandshakeFrame.Reader(options.getHandshakeMaxLength());
    long timer =
        vertx.setTimer(
            deadline.toMillis(),
            id ->
                reply.tryFail(
                    new VteException(
                        ErrorCode.TIMED_OUT,
                        "no " + request.type() + " reply from " + peer + " within " + deadline)));
    socket.handler(
        bytes -> {
          try {
            HandshakeFrame frame = reader.append(bytes);
            if (frame != null && frame.type() != request.type()) {
              throw HandshakeFrame.protocol(
                  peer + " answered a " + request.type() + " request with " + frame.type());
            }
            if (frame != null) {
              reply.tryComplete(frame);
            }
          } catch (VteException e) {
            reply.tryFail(e);
          }
        });
    socket.closeHandler(
        v ->
            reply.tryFail(
                new VteException(
                    ErrorCode.PROTOCOL_ERROR,
                    peer
                        + " closed the handshake connection before a full "
                        + request.type()
                        + " reply ("
                        + reader.received()
                        + " bytes)")));
    socket.write(request.encode());
    return reply
        .future()
        .onComplete(
            r -> {
              vertx.cancelTimer(timer);
              socket.close();
            });
  }
}
