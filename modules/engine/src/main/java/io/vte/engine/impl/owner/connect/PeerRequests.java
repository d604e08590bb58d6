package io.vte.engine.impl.owner.connect;

import io.vertx.core.Future;
import io.vte.engine.impl.handshake.HandshakeChannel;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import java.time.Duration;

/**
 * The one-off requests an owner sends about an endpoint already connected (not part of a
 * handshake): its ready-to-use, its disconnect (a WRITE fence) and a probe of its peer. Each is a
 * {@code Connect} through the {@link HandshakeChannel}, its answer a Future; nothing blocks.
 */
public final class PeerRequests {

  private final HandshakeChannel channel;
  private final ConnectMessages messages;
  private final OwnerConfig config;

  PeerRequests(HandshakeChannel channel, ConnectMessages messages, OwnerConfig config) {
    this.channel = channel;
    this.messages = messages;
    this.config = config;
  }

  private Future<ConnectReply> send(Endpoint ep, ConnectRequest request, Duration deadline) {
    try {
      return channel.connect(ep.path().server(), request, deadline);
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * Tells the peer that the QPs of {@code ep} are in RTS, so it may post: the ready-to-use. Its
   * answer is not needed: if it is lost, the peer posts after its handshake deadline.
   */
  void ready(Endpoint ep) {
    send(ep, messages.ready(ep), config.handshakeDeadline());
  }

  /**
   * Asks the peer to retire its end of {@code ep} (a connected endpoint that failed) so that none
   * of the WRITEs posted on it executes later; answered DISCONNECTED once done.
   *
   * @return the peer's answer, or the channel's failure
   */
  public Future<ConnectReply> disconnect(Endpoint ep) {
    return send(ep, messages.disconnect(ep), config.handshakeDeadline());
  }

  /**
   * Asks the peer whether its end of the connected endpoint {@code ep} is still there: its
   * ready-to-use sent again, which a peer holding that endpoint under the same generations answers
   * ACCEPTED and any other answers INVALID_REQUEST; a refused connection means the peer's handshake
   * service is gone.
   *
   * @param deadline how long the probe may take
   * @return the peer's answer, or the channel's failure
   */
  public Future<ConnectReply> probe(Endpoint ep, Duration deadline) {
    return send(ep, messages.ready(ep), deadline);
  }
}
