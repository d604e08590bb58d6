package io.vte.handshake;

import io.vertx.core.Future;

/** The client's side of a server-streaming call ({@link HandshakeClientPool#watchDevices}). */
public interface PushSubscription {

  /** Ends the stream from this side; {@link #ended()} then completes with ENGINE_CLOSED. */
  void cancel();

  /**
   * @return completes when the stream ends: succeeded when the server ended it with OK, else failed
   *     with a typed cause (PEER_UNREACHABLE for a broken connection, TIMED_OUT when no message
   *     came within the heartbeat deadline, the mapped status otherwise)
   */
  Future<Void> ended();
}
