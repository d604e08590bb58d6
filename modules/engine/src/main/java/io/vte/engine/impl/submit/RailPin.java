package io.vte.engine.impl.submit;

import io.vte.api.TransferOptions;

/**
 * The one rail a caller pinned a batch's requests to ({@link TransferOptions#setRail}).
 *
 * @param localDevice the local device's name
 * @param remoteDevice the peer device's name
 */
record RailPin(String localDevice, String remoteDevice) {

  /**
   * @param options a batch's options
   * @return their pin, null when the requests may take any rail
   */
  static RailPin of(TransferOptions options) {
    return options.getRailLocalDevice() == null
        ? null
        : new RailPin(options.getRailLocalDevice(), options.getRailRemoteDevice());
  }
}
