package io.vte.api;

/**
 * What this engine heard from its peers about their devices (pushed device states), and what it
 * tells its own watchers, obtained from {@link EngineDiagnostics#peerDevices()}: {@code
 * engine.diagnostics().peerDevices().devicesHeldByPeers()}.
 *
 * @param pushedChanges device-state messages applied (each peer's snapshot and every change;
 *     heartbeats and stale messages not counted)
 * @param staleMessages messages ignored as older than one applied before (by the peer's incarnation
 *     and sequence)
 * @param pushedHoldDowns times a peer's message held one of its devices down for rail selection
 * @param devicesHeldByPeers peer devices held down by their peer's word now (every rail to them is
 *     out until the peer says they are back, then probed)
 * @param watchedPeers peers whose device states stream is live now
 * @param watchers engines that watch this engine's device states now
 */
public record PeerDeviceStatus(
    long pushedChanges,
    long staleMessages,
    long pushedHoldDowns,
    int devicesHeldByPeers,
    int watchedPeers,
    int watchers) {}
