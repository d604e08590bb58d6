package io.vte.verbs.ibv.device;

import io.vte.verbs.Gid;

/**
 * One non-empty entry of a port's GID table.
 *
 * @param index its index (the {@code sgid_index} a GRH names)
 * @param gid the GID
 * @param type its type
 * @param ifindex ifindex of the netdev it belongs to, 0 when none or unknown
 */
public record IbvGidEntry(int index, Gid gid, IbvGidType type, int ifindex) {

  @Override
  public String toString() {
    return index + ":" + gid + "(" + type + (ifindex > 0 ? " if" + ifindex : "") + ")";
  }
}
