package io.vte.engine.impl.owner;

/** Told when a port of a local device goes down or comes back (for rail health). */
@FunctionalInterface
public interface PortListener {

  /**
   * Called on a provider thread; must not block.
   *
   * @param deviceName the local device
   * @param port the port number
   * @param active true when the port became active, false when it went down
   */
  void onPortChange(String deviceName, int port, boolean active);
}
