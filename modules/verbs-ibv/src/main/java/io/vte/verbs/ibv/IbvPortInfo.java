package io.vte.verbs.ibv;

import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortState;
import io.vte.verbs.ibv.device.IbvGidEntry;
import io.vte.verbs.ibv.device.IbvGidType;
import io.vte.verbs.ibv.device.IbvMtu;
import java.util.ArrayList;
import java.util.List;

/**
 * What one port of an opened device reports: {@code ibv_query_port} and its GID table.
 *
 * @param port port number
 * @param state port state
 * @param activeMtu active MTU in bytes
 * @param maxMtu largest MTU the port supports, in bytes
 * @param lid LID (0 on InfiniBand without a subnet manager; unused on RoCE)
 * @param linkLayer link layer
 * @param gidTableLength GID table length
 * @param gids the non-empty GID entries, by index
 * @param pkeyTableLength P_Key table length
 * @param maxMessageSize largest message one work request may carry ({@code max_msg_sz}; rxe: 8 MiB,
 *     a ConnectX: 1 GiB)
 */
public record IbvPortInfo(
    int port,
    PortState state,
    int activeMtu,
    int maxMtu,
    int lid,
    LinkLayer linkLayer,
    int gidTableLength,
    List<IbvGidEntry> gids,
    int pkeyTableLength,
    long maxMessageSize) {

  private static final LinkLayer[] LINK_LAYERS = LinkLayer.values();

  /** Copies the GID list. */
  public IbvPortInfo {
    gids = List.copyOf(gids);
  }

  /**
   * Queries the port and reads its whole GID table (one {@code ibv_query_gid} per entry: call it
   * off the event loops, and cache the result).
   *
   * @param ctx an {@code ibv_context*}
   * @param port port number, already checked against the port count
   * @return the port
   */
  static IbvPortInfo query(long ctx, int port) {
    long[] out = new long[IbvNative.PORT_OUT_LEN];
    IbvNative.queryPort(ctx, port, out);
    int linkLayer = (int) out[IbvNative.PORT_LINK_LAYER];
    int tableLength = (int) out[IbvNative.PORT_GID_TABLE_LEN];
    long[] table = new long[tableLength * IbvNative.GID_SLOTS];
    IbvNative.queryGids(ctx, port, linkLayer, tableLength, table);
    List<IbvGidEntry> gids = new ArrayList<>();
    for (int i = 0; i < tableLength; i++) {
      int e = i * IbvNative.GID_SLOTS;
      Gid gid = new Gid(table[e + IbvNative.GID_HI], table[e + IbvNative.GID_LO]);
      if (!gid.equals(Gid.ZERO)) {
        gids.add(
            new IbvGidEntry(
                i,
                gid,
                IbvGidType.of(table[e + IbvNative.GID_TYPE]),
                (int) table[e + IbvNative.GID_IFINDEX]));
      }
    }
    return fromPortSlots(port, out, gids);
  }

  /**
   * @param ctx an {@code ibv_context*}
   * @return this port re-queried ({@code ibv_query_port} only), keeping this GID table
   */
  IbvPortInfo requery(long ctx) {
    long[] out = new long[IbvNative.PORT_OUT_LEN];
    IbvNative.queryPort(ctx, port, out);
    return fromPortSlots(port, out, gids);
  }

  private static IbvPortInfo fromPortSlots(int port, long[] out, List<IbvGidEntry> gids) {
    int linkLayer = (int) out[IbvNative.PORT_LINK_LAYER];
    return new IbvPortInfo(
        port,
        PortState.of((int) out[IbvNative.PORT_STATE]),
        IbvMtu.toBytes((int) out[IbvNative.PORT_ACTIVE_MTU]),
        IbvMtu.toBytes((int) out[IbvNative.PORT_MAX_MTU]),
        (int) out[IbvNative.PORT_LID],
        linkLayer >= 0 && linkLayer < LINK_LAYERS.length
            ? LINK_LAYERS[linkLayer]
            : LinkLayer.UNSPECIFIED,
        (int) out[IbvNative.PORT_GID_TABLE_LEN],
        gids,
        (int) out[IbvNative.PORT_PKEY_TABLE_LEN],
        out[IbvNative.PORT_MAX_MSG_SIZE]);
  }

  /**
   * @param table a GID table read earlier
   * @return these port attributes with that table
   */
  IbvPortInfo withGids(List<IbvGidEntry> table) {
    return new IbvPortInfo(
        port,
        state,
        activeMtu,
        maxMtu,
        lid,
        linkLayer,
        gidTableLength,
        table,
        pkeyTableLength,
        maxMessageSize);
  }

  /**
   * @return true on RoCE, where every packet carries a GRH
   */
  boolean isRoce() {
    return linkLayer == LinkLayer.ETHERNET;
  }
}
