package io.vte.engine.impl.push;

import io.vte.api.PeerDeviceStatus;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.engine.impl.rail.RailSelector;

/**
 * The pushed device states of one engine, both ways: its own feed to its watchers, its watch of its
 * peers, and what rail selection holds on their word.
 *
 * @param feed this engine's device states, streamed to its watchers
 * @param watch the streams from the peers this engine has rails to
 * @param states what the peers said, applied to rail selection
 * @param rails rail selection
 */
public record DevicePush(
    DeviceStateFeed feed, PeerDeviceWatch watch, PeerDeviceStates states, RailSelector rails) {

  /**
   * @return the figures of {@link io.vte.api.EngineDiagnostics#peerDevices()}
   */
  public PeerDeviceStatus status() {
    return new PeerDeviceStatus(
        states.pushedChanges(),
        states.staleMessages(),
        states.pushedHoldDowns(),
        rails.peerDevicesHeldByPeer(),
        states.watchedPeers(),
        feed.watchers());
  }

  /** The engine is closing: its watchers hear it, and it stops watching its peers. */
  public void close() {
    feed.shutDown();
    watch.close();
  }
}
