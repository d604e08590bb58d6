package io.vte.api;

import java.util.List;

/**
 * One local device of an engine as it is now.
 *
 * @param name the device name, e.g. {@code soft0}
 * @param nicPath its NIC path, {@code <server name>@<device>}: what a peer's handshake names as its
 *     peer NIC path
 * @param port the port number the engine uses
 * @param portState the port's state ({@code ACTIVE}, {@code DOWN}, {@code INIT}, ...), or {@code
 *     ERROR} when it could not be read
 * @param lid the port's local identifier (soft verbs: the device's TCP listen port), 0 when unknown
 * @param gid the port's global identifier, empty when unknown
 * @param liveQpNumbers the QPs the device's endpoints own now
 * @param error why the port could not be read, null when it could
 */
public record DeviceStatus(
    String name,
    String nicPath,
    int port,
    String portState,
    int lid,
    String gid,
    List<Integer> liveQpNumbers,
    String error) {

  /** The port state of a device whose port could not be read. */
  public static final String ERROR = "ERROR";

  /** Copies the QP numbers. */
  public DeviceStatus {
    liveQpNumbers = List.copyOf(liveQpNumbers);
  }

  /**
   * @return true when the port is ACTIVE: the device can carry traffic
   */
  public boolean active() {
    return "ACTIVE".equals(portState);
  }
}
