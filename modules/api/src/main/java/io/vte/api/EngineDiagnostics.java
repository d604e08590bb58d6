package io.vte.api;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an open engine shows of itself, for health checks, tools and tests: its names, the state of
 * its metadata store, its local devices and the rails it has used, its counters and, when it runs
 * on soft verbs, a fault injector for its devices. Reached through {@link
 * TransferEngine#diagnostics()}.
 *
 * <p>Callable from any thread. Every method returns a fresh immutable snapshot read from
 * thread-safe state (atomics and volatile fields the engine keeps anyway); reading never stops or
 * waits for the data path.
 */
public interface EngineDiagnostics {

  /**
   * @return the handshake server name, {@code host:port}
   */
  String serverName();

  /**
   * @return the logical name this node's segment is published under (the server name unless
   *     configured)
   */
  String segmentName();

  /**
   * @return the {@code engine} label of this engine's meters: the same after a restart (the
   *     configured segment name, else {@code host:port} with the configured port, {@code host:0}
   *     when it is ephemeral), with {@code #2}, {@code #3}... added when another open engine of the
   *     same registry has it (see {@code docs/operations.md})
   */
  String metricsLabel();

  /**
   * @return the metadata store's state now
   */
  MetadataStatus metadata();

  /**
   * @return every local device, in device-index order
   */
  List<DeviceStatus> devices();

  /**
   * @return every rail (local device, peer device) a segment opened by this engine has had, with
   *     its health and backlog now; empty before the first transfer
   */
  List<RailStatus> rails();

  /**
   * @return the engine's transfer counters since it started
   */
  TransferCounters counters();

  /**
   * @return the device states pushed between this engine and its peers: what it heard, what it
   *     holds down on their word, who watches it
   */
  PeerDeviceStatus peerDevices();

  /**
   * @return the control-plane wire version agreed with each peer NIC path ({@code server@device})
   *     this engine has a live endpoint to, by path; a version is the highest both ends' handshakes
   *     announced (see {@code docs/operations.md})
   */
  Map<String, Integer> wireVersions();

  /**
   * @return the owners' endpoint, handshake and CQ poll figures, summed over every device and owner
   */
  OwnerStats owners();

  /**
   * @return the injector of faults into this engine's own devices when it runs on soft verbs; empty
   *     on other transports (real NICs cannot be told to fail)
   */
  Optional<FaultInjector> faultInjector();
}
