package io.vte.verbs.ibv;

import io.vte.verbs.Gid;
import io.vte.verbs.PortState;
import io.vte.verbs.ibv.device.IbvDeviceReport;
import java.net.InetAddress;

/**
 * Entry point for a forked JVM on a fake libibverbs: scripts a RoCE port with a link-local GID at
 * index 0 and an IPv4-mapped one at index 1, then prints whether the provider is available, where
 * GID types came from, the table and the chosen GID index.
 */
public final class PrintGidTable {

  private PrintGidTable() {}

  /**
   * @param args the sysfs root the fake devices report
   * @throws Exception on a bad literal address
   */
  public static void main(String[] args) throws Exception {
    FakeIbverbs.setSysfsRoot(args[0]);
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 2);
    FakeIbverbs.setGid(
        1, 0, Gid.fromInetAddress(InetAddress.getByName("fe80::1")).toBytes(), FakeIbverbs.ROCE_V1);
    FakeIbverbs.setGid(
        1,
        1,
        Gid.fromInetAddress(InetAddress.getByName("10.0.0.7")).toBytes(),
        FakeIbverbs.ROCE_V2);
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      if (!p.isAvailable()) {
        System.out.println(p.unavailabilityCause().getMessage());
        return;
      }
      IbvDeviceReport r = p.describe("fake_mlx5_0");
      System.out.println("available");
      System.out.println("gidTypesFromVerbs=" + r.gidTypesFromVerbs());
      System.out.println("gids=" + r.ports().get(0).gids());
      System.out.println("chosen=" + r.info().ports().get(0).gidIndex());
    }
  }
}
