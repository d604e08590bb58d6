package io.vte.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.DefaultSoftDevices.Choice;
import io.vte.api.DefaultSoftDevices.Device;
import io.vte.api.DefaultSoftDevices.HostInterface;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The default soft devices chosen from fake interface lists, and from this host's. */
class DefaultSoftDevicesTest {

  private static final HostInterface LO =
      new HostInterface("lo", 1, true, true, List.of(ip("127.0.0.1"), ip("::1")));

  private static InetAddress ip(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void onlyLoopbackGivesOneLoopbackDeviceAndSaysWhy() {
    Choice c = DefaultSoftDevices.choose(List.of(LO));
    assertEquals(List.of(new Device("soft0", "127.0.0.1", "lo")), c.devices());
    assertEquals(List.of("soft0@127.0.0.1"), c.specs());
    assertTrue(c.reason().startsWith("loopback"), c.reason());
    assertTrue(c.loopbackOnly());
  }

  @Test
  void noInterfacesAtAllStillGiveLoopback() {
    assertEquals(List.of("soft0@127.0.0.1"), DefaultSoftDevices.choose(List.of()).specs());
  }

  @Test
  void twoInterfacesGiveTwoDevicesInInterfaceOrderAndLoopbackIsLeftOut() {
    Choice c =
        DefaultSoftDevices.choose(
            List.of(
                new HostInterface("veth1", 7, true, false, List.of(ip("198.18.1.1"))),
                LO,
                new HostInterface(
                    "veth0", 5, true, false, List.of(ip("fe80::1"), ip("198.18.0.1")))));
    assertEquals(
        List.of(
            new Device("soft0", "198.18.0.1", "veth0"), new Device("soft1", "198.18.1.1", "veth1")),
        c.devices());
    assertTrue(c.reason().contains("[veth0, veth1]"), c.reason());
    assertFalse(c.loopbackOnly());
    assertTrue(
        c.skipped().stream().anyMatch(s -> s.startsWith("lo: loopback")), c.skipped().toString());
  }

  @Test
  void downInterfacesIpv6OnlyAndLinkLocalAreSkippedWithTheReason() {
    Choice c =
        DefaultSoftDevices.choose(
            List.of(
                LO,
                new HostInterface("eth0", 2, false, false, List.of(ip("10.1.0.5"))),
                new HostInterface("eth1", 3, true, false, List.of(ip("fd00::2"), ip("fe80::2"))),
                new HostInterface(
                    "eth2",
                    4,
                    true,
                    false,
                    List.of(ip("169.254.3.4"), ip("10.2.0.9"), ip("10.2.0.7"))),
                new HostInterface("ifb0", 5, false, false, List.of())));
    assertEquals(
        List.of("soft0@10.2.0.7", "soft1@10.2.0.9"), c.specs(), "one per address, lowest first");
    assertEquals(
        List.of(
            "lo: loopback (used only when no other interface has a usable IPv4 address)",
            "eth0: down",
            "eth1: no IPv4 address (IPv6 only)",
            "eth2 169.254.3.4: IPv4 link-local",
            "ifb0: down"),
        c.skipped());
  }

  @Test
  void whenEveryOtherInterfaceIsUnusableTheChoiceFallsBackToLoopback() {
    Choice c =
        DefaultSoftDevices.choose(
            List.of(
                LO,
                new HostInterface("eth0", 2, false, false, List.of(ip("10.1.0.5"))),
                new HostInterface("eth1", 3, true, false, List.of(ip("fd00::2")))));
    assertEquals(List.of("soft0@127.0.0.1"), c.specs());
  }

  @Test
  void thisHostGivesAtLeastOneDeviceOnAnAddressOfThisHost() throws Exception {
    Choice c = DefaultSoftDevices.forThisHost();
    assertFalse(c.devices().isEmpty());
    for (Device d : c.devices()) {
      assertTrue(
          java.net.NetworkInterface.getByInetAddress(InetAddress.getByName(d.address())) != null,
          d.toString());
    }
  }
}
