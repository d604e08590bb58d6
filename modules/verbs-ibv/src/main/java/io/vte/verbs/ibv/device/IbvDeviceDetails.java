package io.vte.verbs.ibv.device;

import io.vte.verbs.ibv.IbvPortInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * The lines {@code vte devices} prints under the table for an RDMA device: its limits, each port's
 * link layer, MTUs and LID, its GID table with types and netdevs (the entry VTE uses marked), and
 * why a port cannot be used.
 */
public final class IbvDeviceDetails {

  private IbvDeviceDetails() {}

  /**
   * @param report what the ibverbs provider read of one device
   * @return the lines, indented under the device's name
   */
  public static List<String> lines(IbvDeviceReport report) {
    List<String> out = new ArrayList<>();
    out.add(report.info().name() + ": " + report.caps());
    for (IbvPortInfo p : report.ports()) {
      int chosen = report.info().ports().get(p.port() - 1).gidIndex();
      out.add(
          "  port "
              + p.port()
              + ": "
              + p.linkLayer()
              + " "
              + p.state()
              + " mtu "
              + p.activeMtu()
              + "/"
              + p.maxMtu()
              + " lid "
              + p.lid()
              + " gids "
              + p.gids().size()
              + "/"
              + p.gidTableLength()
              + (report.gidTypesFromVerbs() ? "" : " (types from sysfs: rdma-core < 32)"));
      for (IbvGidEntry g : p.gids()) {
        out.add(
            (g.index() == chosen ? "  * " : "    ")
                + "gid "
                + g.index()
                + " "
                + g.gid()
                + " "
                + g.type()
                + (g.ifindex() > 0 ? " ifindex " + g.ifindex() : ""));
      }
    }
    for (String problem : report.problems()) {
      out.add("  unusable: " + problem);
    }
    return out;
  }
}
