package io.vte.verbs;

/**
 * What {@code ibv_query_port} and {@code ibv_query_gid} tell about one port.
 *
 * <p>Soft verbs: the GID is the IPv4-mapped address the device is bound to and the LID is the TCP
 * port its listener accepts on, so {@code (gid, lid)} is enough to reach it from any host.
 *
 * @param port port number, from 1
 * @param state port state
 * @param activeMtu active MTU in bytes (256, 512, 1024, 2048 or 4096)
 * @param lid local identifier (soft verbs: TCP listen port)
 * @param gid global identifier chosen for this port (soft verbs: IPv4-mapped bind address)
 * @param gidIndex index of {@code gid} in the port's GID table
 * @param linkLayer link layer
 * @param gidType the type of {@code gid} (soft verbs: {@link GidType#UNSPECIFIED})
 */
public record PortAttributes(
    int port,
    PortState state,
    int activeMtu,
    int lid,
    Gid gid,
    int gidIndex,
    LinkLayer linkLayer,
    GidType gidType) {

  /**
   * A port whose GID type is not known.
   *
   * @param port port number, from 1
   * @param state port state
   * @param activeMtu active MTU in bytes
   * @param lid local identifier
   * @param gid global identifier
   * @param gidIndex index of {@code gid}
   * @param linkLayer link layer
   */
  public PortAttributes(
      int port,
      PortState state,
      int activeMtu,
      int lid,
      Gid gid,
      int gidIndex,
      LinkLayer linkLayer) {
    this(port, state, activeMtu, lid, gid, gidIndex, linkLayer, GidType.UNSPECIFIED);
  }
}
