package io.vte.verbs.ibv;

import io.vte.verbs.Gid;
import io.vte.verbs.LinkLayer;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PortState;

/** Reads one port of an opened device through the shim into {@link PortAttributes}. */
final class IbvPorts {

  private static final LinkLayer[] LINK_LAYERS = LinkLayer.values();

  private IbvPorts() {}

  /**
   * @param ctx an {@code ibv_context*}
   * @param port port number, already checked against the port count
   * @param gidIndex explicit GID index, or -1 for automatic selection
   * @return the port's attributes with the selected GID
   */
  static PortAttributes query(long ctx, int port, int gidIndex) {
    long[] out = new long[IbvNative.PORT_OUT_LEN];
    IbvNative.queryPort(ctx, port, gidIndex, out);
    int linkLayer = (int) out[IbvNative.PORT_LINK_LAYER];
    return new PortAttributes(
        port,
        PortState.of((int) out[IbvNative.PORT_STATE]),
        IbvMtu.toBytes((int) out[IbvNative.PORT_ACTIVE_MTU]),
        (int) out[IbvNative.PORT_LID],
        new Gid(out[IbvNative.PORT_GID_HI], out[IbvNative.PORT_GID_LO]),
        (int) out[IbvNative.PORT_GID_INDEX],
        linkLayer >= 0 && linkLayer < LINK_LAYERS.length
            ? LINK_LAYERS[linkLayer]
            : LinkLayer.UNSPECIFIED);
  }
}
