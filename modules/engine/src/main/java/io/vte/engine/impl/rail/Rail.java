package io.vte.engine.impl.rail;

import io.vte.handshake.NicPath;

/**
 * A path a slice travels: one local device and one device of a peer node. Made once per rail (the
 * rail selector keeps them), so its peer NIC path, the key of its endpoint and owner, is built once
 * too.
 *
 * @param localDeviceIndex index of the local device (its {@code LocalContext}) in the engine
 * @param localDeviceName name of the local device
 * @param peerNicPath {@code <peer server>@<peer device>}: the key of the endpoint and of its owner
 */
public record Rail(int localDeviceIndex, String localDeviceName, NicPath peerNicPath) {

  /**
   * @param localDeviceIndex index of the local device in the engine
   * @param localDeviceName name of the local device
   * @param peerServerName where the peer's handshake service listens, {@code host:port}
   * @param peerDeviceName name of the peer's device
   * @throws io.vte.api.VteException INVALID_ARGUMENT when the peer's names make no valid NIC path
   */
  public Rail(
      int localDeviceIndex, String localDeviceName, String peerServerName, String peerDeviceName) {
    this(localDeviceIndex, localDeviceName, NicPath.of(peerServerName, peerDeviceName));
  }

  /**
   * @return where the peer's handshake service listens, {@code host:port}
   */
  public String peerServerName() {
    return peerNicPath.server();
  }

  /**
   * @return name of the peer's device
   */
  public String peerDeviceName() {
    return peerNicPath.device();
  }
}
