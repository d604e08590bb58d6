package io.vte.engine.impl;

/**
 * A path a slice travels: one local device and one device of a peer node.
 *
 * @param localDeviceIndex index of the local device (its {@code LocalContext}) in the engine
 * @param localDeviceName name of the local device
 * @param peerServerName where the peer's handshake service listens, {@code host:port}
 * @param peerDeviceName name of the peer's device
 */
public record Rail(int localDeviceIndex, String localDeviceName, String peerServerName, String peerDeviceName) {

  /** @return {@code <peer server>@<peer device>}: the key of the endpoint and of its owner */
  public String peerNicPath() {
    return peerServerName + "@" + peerDeviceName;
  }
}
