package io.vte.verbs.soft.impl;

import java.lang.System.Logger.Level;

/** What a soft device logs, each line prefixed with the device's name. Any thread. */
final class DeviceLog {

  private static final System.Logger LOG = System.getLogger(SoftDevice.class.getName());

  private final String device;

  DeviceLog(String device) {
    this.device = device;
  }

  void linkChanged(Object link, boolean up) {
    LOG.log(Level.INFO, () -> device + ": " + link + " went " + (up ? "up" : "down"));
  }

  void connectionFailure(Connection c, Throwable e) {
    LOG.log(Level.DEBUG, () -> device + ": connection " + c + " failed: " + e);
  }

  void refusedHello(int qpn, int srcQpn) {
    LOG.log(
        Level.DEBUG,
        () ->
            device
                + ": refused a connection to QP "
                + qpn
                + " from QP "
                + srcQpn
                + " (unknown, or not in RTR/RTS with that peer)");
  }

  void protocolError(Connection c, String what) {
    LOG.log(
        Level.WARNING,
        () -> device + ": protocol error on " + c + ": " + what + "; connection closed");
  }

  void handlerFailure(String what, Throwable e) {
    LOG.log(Level.WARNING, device + ": " + what + " threw", e);
  }

  void nicFailure(Throwable e) {
    LOG.log(Level.ERROR, device + ": NIC thread failed", e);
  }
}
