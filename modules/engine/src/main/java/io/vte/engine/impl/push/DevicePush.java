package io.vte.engine.impl.push;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vte.api.PeerDeviceStatus;
import io.vte.engine.impl.rail.PeerDeviceStates;
import io.vte.engine.impl.rail.RailSelector;
import java.util.List;

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

  /**
   * @param registry where the meters go
   * @param label the engine's {@code engine} tag
   * @return {@code vte.peer.device.pushes} (device-state messages applied), {@code
   *     vte.peer.device.stale} (ignored as older), {@code vte.peer.device.holddowns} (times a
   *     peer's word held one of its devices down), {@code vte.peer.devices.held} (peer devices held
   *     down on their peer's word now) and {@code vte.peer.watched} (live streams from peers)
   */
  public List<Meter> bind(MeterRegistry registry, String label) {
    return List.of(
        FunctionCounter.builder("vte.peer.device.pushes", states, PeerDeviceStates::pushedChanges)
            .tag("engine", label)
            .description("peer device-state messages applied (snapshots and changes)")
            .register(registry),
        FunctionCounter.builder("vte.peer.device.stale", states, PeerDeviceStates::staleMessages)
            .tag("engine", label)
            .description("peer device-state messages ignored as older than one applied")
            .register(registry),
        FunctionCounter.builder(
                "vte.peer.device.holddowns", states, PeerDeviceStates::pushedHoldDowns)
            .tag("engine", label)
            .description("times a peer's pushed word held one of its devices down")
            .register(registry),
        Gauge.builder("vte.peer.devices.held", rails, RailSelector::peerDevicesHeldByPeer)
            .tag("engine", label)
            .description("peer devices whose rails are held down on their peer's word now")
            .register(registry),
        Gauge.builder("vte.peer.watched", states, PeerDeviceStates::watchedPeers)
            .tag("engine", label)
            .description("peers whose device-state stream is live")
            .register(registry));
  }

  /** The engine is closing: its watchers hear it, and it stops watching its peers. */
  public void close() {
    feed.shutDown();
    watch.close();
  }
}
