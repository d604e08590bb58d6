package io.vte.engine.impl.rail;

import io.vte.verbs.Gid;
import java.net.InetAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which peer devices each local device is wired to, as a rail-optimized fabric wires NIC i of every
 * host to switch i: a local device whose address lies in an IP subnet that holds some of the peer's
 * devices prefers those, because a host's other networks (a management NIC, another rail's subnet
 * reached only through a router, or not at all) may never carry its traffic. A local device with no
 * known subnet, or whose subnet holds none of the peer's devices (a routed fabric), prefers every
 * peer device. {@link RailSelector} uses the other rails only when no preferred one is usable.
 * Immutable and thread-safe.
 */
public final class RailAffinity {

  /** No wiring known: every rail is preferred. */
  public static final RailAffinity NONE = new RailAffinity(List.of());

  /** Each local device's subnet by device index; null where it is unknown. */
  private final Subnet[] local;

  private RailAffinity(List<Subnet> local) {
    this.local = local.toArray(new Subnet[0]);
  }

  /**
   * Looks up the subnet of each local device's address among the host's interfaces. Reads kernel
   * tables: call it on a worker, not on an event loop.
   *
   * @param gids each local device's GID, by device index (an IPv4-mapped GID is the soft device's
   *     address)
   * @return the affinity of those devices; a device whose address is on no interface has no known
   *     subnet
   */
  public static RailAffinity ofLocalGids(List<Gid> gids) {
    List<Subnet> subnets = new ArrayList<>(gids.size());
    for (Gid gid : gids) {
      subnets.add(subnetOf(gid));
    }
    return new RailAffinity(subnets);
  }

  /**
   * @param subnets each local device's subnet by device index, as {@code address/prefix} ({@code
   *     198.18.0.1/24}), or null where it is unknown
   * @return the affinity of devices with those subnets (for tests and for hosts described by hand)
   */
  public static RailAffinity ofSubnets(List<String> subnets) {
    List<Subnet> parsed = new ArrayList<>(subnets.size());
    for (String s : subnets) {
      parsed.add(s == null ? null : Subnet.parse(s));
    }
    return new RailAffinity(parsed);
  }

  private static Subnet subnetOf(Gid gid) {
    InetAddress address = gid.toInetAddress();
    try {
      NetworkInterface nif = NetworkInterface.getByInetAddress(address);
      if (nif != null) {
        for (InterfaceAddress ia : nif.getInterfaceAddresses()) {
          if (address.equals(ia.getAddress())) {
            return new Subnet(address.getAddress(), ia.getNetworkPrefixLength());
          }
        }
      }
    } catch (SocketException e) {
      // no interface list: nothing known, every rail stays preferred
    }
    return null;
  }

  /**
   * @param localDevice local device index
   * @param peerGids the peer's device GIDs, by peer device index
   * @return for each peer device, whether the local device prefers it
   */
  public boolean[] preferred(int localDevice, List<Gid> peerGids) {
    boolean[] preferred = new boolean[peerGids.size()];
    Subnet subnet = localDevice < local.length ? local[localDevice] : null;
    boolean anyInSubnet = false;
    for (int p = 0; p < preferred.length; p++) {
      preferred[p] =
          subnet != null && subnet.contains(peerGids.get(p).toInetAddress().getAddress());
      anyInSubnet |= preferred[p];
    }
    if (!anyInSubnet) {
      Arrays.fill(preferred, true);
    }
    return preferred;
  }

  /** An address and its network prefix length. */
  private record Subnet(byte[] address, int prefix) {

    static Subnet parse(String s) {
      int slash = s.indexOf('/');
      try {
        return new Subnet(
            InetAddress.getByName(s.substring(0, slash)).getAddress(),
            Integer.parseInt(s.substring(slash + 1)));
      } catch (UnknownHostException | RuntimeException e) {
        throw new IllegalArgumentException("not address/prefix: " + s, e);
      }
    }

    boolean contains(byte[] other) {
      if (other.length != address.length) {
        return false;
      }
      int bits = prefix;
      for (int i = 0; i < address.length && bits > 0; i++, bits -= 8) {
        int mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
        if ((address[i] & mask) != (other[i] & mask)) {
          return false;
        }
      }
      return true;
    }
  }
}
