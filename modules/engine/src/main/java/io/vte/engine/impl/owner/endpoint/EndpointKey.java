package io.vte.engine.impl.owner.endpoint;

import io.vte.handshake.NicPath;

/**
 * What an owner stores an endpoint under: the peer NIC path, and for a NIC connected to itself
 * which of the two ends it is. Slices to a peer, and a peer's own connection to us, use the
 * endpoint to {@link #to(NicPath) that peer}; only the passive end of a connection of this NIC to
 * itself needs a key of its own, since its peer path is ours and the active end already holds it.
 *
 * @param peer the peer NIC path
 * @param loopbackPassive true for the passive end of this NIC's connection to itself
 */
public record EndpointKey(NicPath peer, boolean loopbackPassive) {

  /**
   * @return the key of the endpoint that slices to {@code peer} use
   */
  public static EndpointKey to(NicPath peer) {
    return new EndpointKey(peer, false);
  }

  /**
   * @param requester the NIC path of a peer asking to connect
   * @param local this owner's NIC path
   * @return the key of the passive endpoint answering it
   */
  public static EndpointKey passive(NicPath requester, NicPath local) {
    return new EndpointKey(requester, requester.equals(local));
  }

  @Override
  public String toString() {
    return loopbackPassive ? peer + " (loopback, passive end)" : peer.toString();
  }
}
