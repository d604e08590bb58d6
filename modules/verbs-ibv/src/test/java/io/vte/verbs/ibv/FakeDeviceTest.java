package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.DeviceInfo;
import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Device listing, port attributes and GID selection through the shim, against the fake libibverbs.
 */
@Tag("fake")
class FakeDeviceTest {

  private static final byte[] LINK_LOCAL = FakeIbverbs.gid("fe80::1");
  private static final byte[] LINK_LOCAL_2 = FakeIbverbs.gid("fe80::2");
  private static final byte[] MAPPED_A = FakeIbverbs.gid("::ffff:10.0.0.7");
  private static final byte[] MAPPED_B = FakeIbverbs.gid("::ffff:10.0.0.8");
  private static final byte[] GLOBAL_V6 = FakeIbverbs.gid("2001:db8::5");
  private static final byte[] ZERO = new byte[16];

  @BeforeEach
  void reset() {
    FakeIbverbs.reset();
  }

  @AfterEach
  void nothingLeft() {
    FakeIbverbs.assertNothingLive();
  }

  /** The GID index a fresh provider with these settings chooses on port 1 of fake_mlx5_0. */
  static int selectedIndex(IbvSettings settings) {
    try (IbvProvider p = new IbvProvider(settings);
        VerbsContext ctx = p.open("fake_mlx5_0")) {
      return ctx.queryPort(1).gidIndex();
    }
  }

  @Test
  void theShimIsLinkedAgainstTheFake() {
    assertNull(IbvLibrary.failure());
    assertEquals(List.of("fake_mlx5_0"), List.of(IbvNative.deviceNames()));
  }

  @Test
  void devicesListEveryPortWithItsAttributes() {
    FakeIbverbs.setDevices(new String[] {"fake_mlx5_0", "fake_mlx5_1"}, 2);
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 5, 7, FakeIbverbs.LINK_ETHERNET, 1);
    FakeIbverbs.setPort(2, PortState.DOWN.code(), 3, 8, 1, 1);
    FakeIbverbs.setGid(1, 0, MAPPED_A, FakeIbverbs.ROCE_V2);
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      assertTrue(p.isAvailable(), String.valueOf(p.unavailabilityCause()));
      List<DeviceInfo> devices = p.devices();
      assertEquals(2, devices.size());
      assertEquals("fake_mlx5_1", devices.get(1).name());
      assertEquals("ibverbs", devices.get(1).provider());
      PortAttributes p1 = devices.get(0).ports().get(0);
      assertEquals(
          new PortAttributes(
              1, PortState.ACTIVE, 4096, 7, Gid.fromBytes(MAPPED_A), 0, LinkLayer.ETHERNET),
          p1);
      PortAttributes p2 = devices.get(0).ports().get(1);
      assertEquals(PortState.DOWN, p2.state());
      assertEquals(1024, p2.activeMtu());
      assertEquals(LinkLayer.INFINIBAND, p2.linkLayer());
      assertEquals(2, devices.get(1).ports().size());
      assertEquals(
          List.of(),
          FakeIbverbs.lines("ibv_create_comp_channel"),
          "listing starts no channel or thread");
      assertEquals(2, FakeIbverbs.lines("ibv_close_device").size());
    }
  }

  @Test
  void automaticGidPrefersRoceV2ThenIpv4MappedThenRoutableOverLinkLocal() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 6);
    FakeIbverbs.setGid(1, 0, LINK_LOCAL, FakeIbverbs.ROCE_V1);
    FakeIbverbs.setGid(1, 1, LINK_LOCAL_2, FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGid(1, 2, MAPPED_A, FakeIbverbs.ROCE_V1);
    FakeIbverbs.setGid(1, 3, GLOBAL_V6, FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGid(1, 4, MAPPED_B, FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGid(1, 5, ZERO, FakeIbverbs.ROCE_V2);
    assertEquals(4, selectedIndex(new IbvSettings()), "RoCE v2 + IPv4-mapped wins");
    FakeIbverbs.setGid(1, 4, ZERO, FakeIbverbs.ROCE_V2);
    assertEquals(
        3, selectedIndex(new IbvSettings()), "then RoCE v2 routable over RoCE v2 link-local");
    FakeIbverbs.setGid(1, 3, ZERO, FakeIbverbs.ROCE_V2);
    assertEquals(1, selectedIndex(new IbvSettings()), "then any RoCE v2");
    FakeIbverbs.setGid(1, 1, ZERO, FakeIbverbs.ROCE_V2);
    assertEquals(2, selectedIndex(new IbvSettings()), "then IPv4-mapped over link-local");
    FakeIbverbs.setGid(1, 2, ZERO, FakeIbverbs.ROCE_V2);
    assertEquals(0, selectedIndex(new IbvSettings()), "link-local only as a last resort");
  }

  @Test
  void automaticGidPrefersTheInterfaceOfThePreferredAddress() throws Exception {
    int lo =
        java.net.NetworkInterface.getByInetAddress(java.net.InetAddress.getByName("127.0.0.1"))
            .getIndex();
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 3);
    FakeIbverbs.setGid(1, 0, FakeIbverbs.gid("198.18.0.9"), FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGidIfindex(1, 0, lo + 1000);
    FakeIbverbs.setGid(1, 1, LINK_LOCAL, FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGidIfindex(1, 1, lo);
    FakeIbverbs.setGid(1, 2, FakeIbverbs.gid("198.18.0.10"), FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGidIfindex(1, 2, lo);
    assertEquals(0, selectedIndex(new IbvSettings()), "the lowest RoCE v2 IPv4 GID of any netdev");
    IbvSettings engineOnLo = new IbvSettings().setPreferredAddress("127.0.0.1");
    assertEquals(2, selectedIndex(engineOnLo), "the RoCE v2 IPv4 GID of the engine's interface");
    IbvSettings engineOn10 = new IbvSettings().setPreferredAddress("198.18.0.10");
    assertEquals(2, selectedIndex(engineOn10), "the GID of the engine's address itself");
  }

  @Test
  void explicitGidIndexIsUsedOrRejectedWithItsValue() {
    FakeIbverbs.setPort(1, PortState.ACTIVE.code(), 3, 1, FakeIbverbs.LINK_ETHERNET, 3);
    FakeIbverbs.setGid(1, 0, LINK_LOCAL, FakeIbverbs.ROCE_V1);
    FakeIbverbs.setGid(1, 1, MAPPED_A, FakeIbverbs.ROCE_V2);
    FakeIbverbs.setGid(1, 2, ZERO, FakeIbverbs.ROCE_V2);
    assertEquals(0, selectedIndex(new IbvSettings().setGidIndex(0)));
    for (int bad : new int[] {2, 9}) {
      try (IbvProvider p = new IbvProvider(new IbvSettings().setGidIndex(bad));
          VerbsContext ctx = p.open("fake_mlx5_0")) {
        VerbsException e = assertThrows(VerbsException.class, () -> ctx.queryPort(1));
        assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
        assertTrue(e.getMessage().contains("GID index " + bad + " of port 1"), e.getMessage());
      }
    }
  }

  @Test
  void deviceListFailuresBecomePlainCauses() {
    FakeIbverbs.setDeviceListErrno(38);
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      assertFalse(p.isAvailable());
      assertTrue(p.unavailabilityCause().getMessage().contains("the kernel has no RDMA devices"));
      assertEquals(
          VerbsError.NOT_SUPPORTED, assertThrows(VerbsException.class, p::devices).error());
    }
    FakeIbverbs.setDeviceListErrno(0);
    FakeIbverbs.setDevices(new String[0], 1);
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      assertFalse(p.isAvailable());
      assertTrue(p.unavailabilityCause().getMessage().contains("no RDMA devices found"));
      assertEquals(VerbsError.NO_DEVICE, assertThrows(VerbsException.class, p::devices).error());
    }
  }

  @Test
  void unknownDeviceAndPortAreNamed() {
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      VerbsException e = assertThrows(VerbsException.class, () -> p.open("mlx5_9"));
      assertEquals(VerbsError.NO_DEVICE, e.error());
      assertTrue(e.getMessage().contains("'mlx5_9'"), e.getMessage());
      try (VerbsContext ctx = p.open("fake_mlx5_0")) {
        assertEquals(1, ctx.portCount());
        VerbsException port = assertThrows(VerbsException.class, () -> ctx.queryPort(2));
        assertEquals(VerbsError.INVALID_ARGUMENT, port.error());
        assertTrue(port.getMessage().contains("port 2"), port.getMessage());
      }
    }
  }

  @Test
  void openFailureFromTheDriverIsTyped() {
    FakeIbverbs.failNext("ibv_open_device", 12, -1);
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      VerbsException e = assertThrows(VerbsException.class, () -> p.open("fake_mlx5_0"));
      assertEquals(VerbsError.NO_MEMORY, e.error());
      assertTrue(e.getMessage().contains("ibv_open_device failed with ENOMEM"), e.getMessage());
    }
  }
}
