package io.vte.verbs.ibv;

import io.vte.verbs.Gid;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.ibv.device.IbvGidEntry;
import io.vte.verbs.ibv.device.IbvGidType;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

/**
 * Chooses the source GID of a port from its cached table: an explicit index, or the best entry that
 * matches the configured netdev, IP address and GID type (first a GID of the interface that holds
 * the preferred address, e.g. the engine's own; then RoCE v2, then IPv4-mapped, then routable;
 * link-local last; the lowest index on ties). A port without a usable GID is an error naming the
 * port, the filters and the table, never a silent index 0.
 */
final class IbvGidSelector {

  private final IbvSettings settings;

  /** The interface that holds the preferred address, 0 when none (or it is not local). */
  private final int preferredIfindex;

  /** The GID of the preferred address (its IPv4-mapped form), or null. */
  private final Gid preferredGid;

  /**
   * @param settings the filters: {@code gidIndex}, {@code gidNetdev}, {@code gidAddress}, {@code
   *     gidType}; and the preference {@code preferredAddress}
   */
  IbvGidSelector(IbvSettings settings) {
    this.settings = settings;
    InetAddress preferred = literal(settings.preferredAddress());
    this.preferredGid = preferred == null ? null : Gid.fromInetAddress(preferred);
    this.preferredIfindex = preferred == null ? 0 : ifindexHolding(preferred);
  }

  /** The address of an IP literal without a name lookup, or null for anything else. */
  private static InetAddress literal(String address) {
    if (address == null || !address.matches("[0-9A-Fa-f:.]+")) {
      return null;
    }
    try {
      InetAddress a = InetAddress.getByName(address);
      return a.isAnyLocalAddress() ? null : a;
    } catch (java.net.UnknownHostException e) {
      return null;
    }
  }

  private static int ifindexHolding(InetAddress address) {
    try {
      NetworkInterface nif = NetworkInterface.getByInetAddress(address);
      return nif == null ? 0 : nif.getIndex();
    } catch (SocketException e) {
      return 0;
    }
  }

  /**
   * @param device device name, for messages
   * @param port the port and its GID table
   * @return the chosen entry
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} when a filter names nothing in the
   *     table, {@link VerbsError#NO_DEVICE} when the table has no GID at all
   */
  IbvGidEntry select(String device, IbvPortInfo port) {
    int wanted = settings.gidIndex();
    int ifindex = ifindexOf(settings.gidNetdev());
    Gid address = settings.gidAddress() == null ? null : gidOf(settings.gidAddress());
    IbvGidEntry best = null;
    int bestScore = -1;
    for (IbvGidEntry e : port.gids()) {
      if ((wanted >= 0 && e.index() != wanted)
          || (ifindex > 0 && e.ifindex() != ifindex)
          || (address != null && !e.gid().equals(address))
          || (settings.gidType() != IbvGidType.UNKNOWN && e.type() != settings.gidType())) {
        continue;
      }
      int score = score(e);
      if (score > bestScore) {
        best = e;
        bestScore = score;
      }
    }
    if (best != null) {
      return best;
    }
    String where = "port " + port.port() + " of '" + device + "'";
    if (wanted >= 0 && settings.gidNetdev() == null && settings.gidAddress() == null) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "GID index "
              + wanted
              + " of "
              + where
              + " is out of range or empty (table has "
              + port.gidTableLength()
              + " entries: "
              + port.gids()
              + ")");
    }
    String filters = filters();
    throw new VerbsException(
        filters.isEmpty() ? VerbsError.NO_DEVICE : VerbsError.INVALID_ARGUMENT,
        where
            + " has no usable GID"
            + (filters.isEmpty() ? "" : " matching " + filters)
            + " (table of "
            + port.gidTableLength()
            + ": "
            + port.gids()
            + ")"
            + (port.isRoce()
                ? "; RoCE needs one: give the netdev an IP address, or choose another port"
                : ""));
  }

  private String filters() {
    StringBuilder b = new StringBuilder();
    if (settings.gidIndex() >= 0) {
      b.append("gidIndex=").append(settings.gidIndex()).append(' ');
    }
    if (settings.gidNetdev() != null) {
      b.append("gidNetdev=").append(settings.gidNetdev()).append(' ');
    }
    if (settings.gidAddress() != null) {
      b.append("gidAddress=").append(settings.gidAddress()).append(' ');
    }
    if (settings.gidType() != IbvGidType.UNKNOWN) {
      b.append("gidType=").append(settings.gidType()).append(' ');
    }
    return b.toString().trim();
  }

  private int score(IbvGidEntry e) {
    int score = e.type() == IbvGidType.ROCE_V2 ? 4 : 0;
    if ((preferredIfindex > 0 && e.ifindex() == preferredIfindex) || e.gid().equals(preferredGid)) {
      score += 8;
    }
    if (e.gid().isIpv4Mapped()) {
      return score + 2;
    }
    return score + (e.gid().isLinkLocal() ? 0 : 1);
  }

  private static int ifindexOf(String netdev) {
    if (netdev == null) {
      return 0;
    }
    try {
      NetworkInterface nif = NetworkInterface.getByName(netdev);
      if (nif != null) {
        return nif.getIndex();
      }
    } catch (SocketException e) {
      // reported below
    }
    throw new VerbsException(
        VerbsError.INVALID_ARGUMENT,
        "ibverbs setting 'gidNetdev': no netdev named '" + netdev + "'");
  }

  private static Gid gidOf(String address) {
    try {
      return Gid.fromInetAddress(InetAddress.getByName(address));
    } catch (java.net.UnknownHostException | RuntimeException e) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "ibverbs setting 'gidAddress' must be an IP address, got '" + address + "'");
    }
  }
}
