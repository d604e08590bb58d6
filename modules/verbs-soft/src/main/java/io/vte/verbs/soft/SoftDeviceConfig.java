package io.vte.verbs.soft;

import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * One configured soft device.
 *
 * @param name device name, e.g. {@code soft0}
 * @param host address the device binds to; its GID is this address IPv4-mapped
 * @param port TCP port the device listens on (its LID); 0 picks a free port when opened
 */
public record SoftDeviceConfig(String name, InetAddress host, int port) {

  /** Validates the fields. */
  public SoftDeviceConfig {
    if (name == null || name.isBlank()) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "soft device name is empty");
    }
    if (host == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "soft device " + name + " has no host");
    }
    if (port < 0 || port > 0xffff) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "soft device " + name + ": port out of range: " + port);
    }
  }

  /**
   * @param name device name
   * @param host host name or address literal
   * @param port TCP port, 0 for ephemeral
   * @return the configuration
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} when the host does not resolve
   */
  public static SoftDeviceConfig of(String name, String host, int port) {
    try {
      return new SoftDeviceConfig(name, InetAddress.getByName(host), port);
    } catch (UnknownHostException e) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "soft device " + name + ": unknown host '" + host + "'", e);
    }
  }
}
