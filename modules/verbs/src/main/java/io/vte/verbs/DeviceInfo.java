package io.vte.verbs;

import java.util.List;

/**
 * A device a provider can open.
 *
 * @param name device name, e.g. {@code soft0} or {@code mlx5_0}
 * @param provider name of the provider that owns it
 * @param ports attributes of each port, port numbers starting at 1
 */
public record DeviceInfo(String name, String provider, List<PortAttributes> ports) {

  /** Copies the port list so the record is immutable. */
  public DeviceInfo {
    ports = List.copyOf(ports);
  }
}
