package io.vte.api;

/**
 * One rail (a local device and a device of a peer) as the engine's rail selection sees it now.
 *
 * @param localDevice the local device's name
 * @param peerServer the peer's server name, {@code host:port}
 * @param peerDevice the peer device's name
 * @param localPortUp false while the local device's port is down (no rail of it is used)
 * @param heldDown true while the rail is held down after repeated failures (until a probe succeeds)
 * @param peerDeviceHeldDown true while the peer device is held down (no rail to it is used)
 * @param backlogBytes bytes of slices routed to the rail and not yet ended
 * @param movedBytes bytes of the slices the rail completed since the engine started (where slices
 *     went: a failover to other rails shows as this count standing still)
 * @param lastFailure the rail's latest failure, null when it has none
 */
public record RailStatus(
    String localDevice,
    String peerServer,
    String peerDevice,
    boolean localPortUp,
    boolean heldDown,
    boolean peerDeviceHeldDown,
    long backlogBytes,
    long movedBytes,
    VteException lastFailure) {

  /** The local device name of the same-host (shared-memory) rail. */
  public static final String SAME_HOST_DEVICE = "shm";

  /**
   * @return true for the same-host rail, which copies through shared memory instead of a device
   */
  public boolean sameHost() {
    return SAME_HOST_DEVICE.equals(localDevice);
  }

  /**
   * @return true when slices may be routed to it: port up and nothing held down
   */
  public boolean usable() {
    return localPortUp && !heldDown && !peerDeviceHeldDown;
  }
}
