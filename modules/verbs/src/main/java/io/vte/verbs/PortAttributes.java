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
 */
public record PortAttributes(
    int port,
    PortState state,
    int activeMtu,
    int lid,
    Gid gid,
    int gidIndex,
    LinkLayer linkLayer) {}
