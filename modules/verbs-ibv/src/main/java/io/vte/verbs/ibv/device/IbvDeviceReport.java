package io.vte.verbs.ibv.device;

import io.vte.verbs.DeviceInfo;
import io.vte.verbs.ibv.IbvDeviceCaps;
import io.vte.verbs.ibv.IbvPortInfo;
import io.vte.verbs.ibv.IbvProvider;
import java.util.List;

/**
 * What {@code vte devices} shows of an RDMA device: the SPI view, the device's limits, every port
 * with its GID table (types, netdevs), and why a port cannot be used.
 *
 * @param info the device as {@link IbvProvider#devices()} lists it (GID VTE would choose)
 * @param caps the device's limits
 * @param ports each port with its GID table
 * @param problems why a port has no usable GID, one message per such port
 * @param gidTypesFromVerbs true when GID types come from {@code ibv_query_gid_ex}, false when from
 *     sysfs (rdma-core older than 32)
 */
public record IbvDeviceReport(
    DeviceInfo info,
    IbvDeviceCaps caps,
    List<IbvPortInfo> ports,
    List<String> problems,
    boolean gidTypesFromVerbs) {

  /** Copies the lists. */
  public IbvDeviceReport {
    ports = List.copyOf(ports);
    problems = List.copyOf(problems);
  }
}
