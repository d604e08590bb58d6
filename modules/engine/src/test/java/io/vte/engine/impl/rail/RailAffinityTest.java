package io.vte.engine.impl.rail;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vte.verbs.Gid;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class RailAffinityTest {

  private static Gid gid(String ip) throws Exception {
    return Gid.fromInetAddress(InetAddress.getByName(ip));
  }

  @Test
  void aDeviceWhoseSubnetHoldsPeerDevicesPrefersExactlyThose() throws Exception {
    RailAffinity a =
        RailAffinity.ofSubnets(Arrays.asList("198.18.0.1/24", "198.18.1.1/24", "198.19.0.1/24"));
    List<Gid> peer = List.of(gid("198.18.0.2"), gid("198.18.1.2"), gid("198.19.0.2"));
    assertArrayEquals(new boolean[] {true, false, false}, a.preferred(0, peer));
    assertArrayEquals(new boolean[] {false, true, false}, a.preferred(1, peer));
    assertArrayEquals(new boolean[] {false, false, true}, a.preferred(2, peer));
  }

  @Test
  void prefixesThatEndInsideAByteCompareOnlyTheirBits() throws Exception {
    RailAffinity a = RailAffinity.ofSubnets(List.of("10.0.0.9/29"));
    assertArrayEquals(
        new boolean[] {true, true, false},
        a.preferred(0, List.of(gid("10.0.0.8"), gid("10.0.0.15"), gid("10.0.0.16"))));
  }

  @Test
  void anUnknownSubnetOrOneWithoutPeerDevicesPrefersEveryPeerDevice() throws Exception {
    RailAffinity a = RailAffinity.ofSubnets(Arrays.asList(null, "10.1.0.1/24"));
    List<Gid> peer = List.of(gid("10.2.0.2"), gid("10.3.0.2"));
    assertArrayEquals(new boolean[] {true, true}, a.preferred(0, peer), "no subnet known");
    assertArrayEquals(
        new boolean[] {true, true}, a.preferred(1, peer), "a routed fabric: no peer in the subnet");
    assertArrayEquals(new boolean[] {true, true}, RailAffinity.NONE.preferred(5, peer));
  }

  @Test
  void theHostsLoopbackInterfaceGivesLoopbackAddressesOneSubnet() throws Exception {
    RailAffinity a = RailAffinity.ofLocalGids(List.of(gid("127.0.0.1"), gid("127.0.0.2")));
    List<Gid> peer = List.of(gid("127.0.0.3"), gid("198.18.9.9"));
    assertArrayEquals(new boolean[] {true, false}, a.preferred(0, peer), "lo is 127.0.0.1/8");
  }

  @Test
  void aSubnetThatIsNotAddressSlashPrefixIsRefused() {
    assertThrows(
        IllegalArgumentException.class, () -> RailAffinity.ofSubnets(List.of("198.18.0.1")));
  }
}
