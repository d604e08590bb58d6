package io.vte.engine.impl.rail;

import io.vte.api.RailStatus;
import io.vte.api.VteException;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.handshake.NicPath;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Picks a rail (local device, peer device) for each slice among the healthy ones: the one where the
 * slice is expected to finish first, from the rail's backlog and its measured drain rate ({@link
 * RailLoad}), so that each rail gets slices in proportion to its speed and a slow rail does not
 * hold requests back; ties go round-robin in a fixed order, so equal rails share evenly and tests
 * are deterministic. A rail is skipped while its local port is down, while the peer describes its
 * device as inactive, when the remote buffer has no key on the peer device, while the rail is held
 * down after repeated errors, and while the peer device it leads to is held down ({@link
 * RailHealth}). A failure that implicates the peer device (the QP gave up on it, RETRY_EXC, or the
 * peer answered DEVICE_DOWN) holds down every rail to that device at once, whichever local device
 * they start from, so that no other slice waits out a QP timeout on the same dead device; a local
 * port that is down takes every rail of the local device out at once ({@link #setLocalPortUp}) and
 * is not blamed on the peer. A hold-down ends with a single probe, which the other slices join only
 * while it is on the last rail left. A device the newest descriptor of the peer (by version)
 * describes as down is held down too, for the rails of every handle of that peer; and one the peer
 * says is down (a pushed device state, {@link #holdPeerDeviceDown}) is held down until the peer
 * says it is back, then probed by one slice first. Rails between devices wired to each other
 * ({@link RailAffinity}: the same subnet) are preferred; the others carry slices only while no
 * preferred rail is usable, so that a path the fabric never carries (a management NIC, a rail no
 * router joins) gets no slice while a wired one works. In an engine of two providers, rails run
 * only between devices of one provider (a soft device reaches only a peer's soft devices), and the
 * rails of the local fallback devices (soft verbs beside ibverbs) carry slices only while no rail
 * of the other provider to the peer is usable: slices fail over from RDMA to TCP and move back when
 * an RDMA rail is usable again. Thread-safe, lock-free.
 */
public final class RailSelector implements Transport {

  /** Busy time one rate sample of a rail spans. */
  static final long RATE_WINDOW_NANOS = 5_000_000L;

  /** The provider whose devices are fallbacks beside another provider's. */
  private static final String FALLBACK = "soft";

  /** Rank added to a rail of a fallback device: above every rail of the other provider. */
  static final int FALLBACK_RANK = 2;

  /** Rank added to a rail between devices not wired to each other ({@link RailAffinity}). */
  static final int UNWIRED_RANK = 1;

  /**
   * How much later a slice may be expected to finish on a rail whose owner runs on the submitting
   * thread than on the best rail, and still take it: such a slice is posted by that thread's next
   * owner cycle and completes there, with no thread woken on this side, which saves more than this
   * for a small request; a large or deep load soon has more backlog than this and spreads as
   * before.
   */
  static final long LOCAL_OWNER_NANOS = 400_000L;

  // Read by the PeerRails of this selector.
  final List<String> localDevices;
  final AtomicIntegerArray localPortDown;
  final int failuresToPause;
  final long holdDownNanos;
  final long probeWindowNanos;
  final LongSupplier clock;
  final RailAffinity affinity;

  /** The carrier of each rail's slices (the owner of its endpoint), asked once per rail built. */
  final Function<Rail, Carrier> carriers;

  /** Each local device's provider, by index; empty: any (rails to every peer device). */
  final List<String> localTransports;

  /** Whether a local device is a fallback device: soft verbs beside devices of another provider. */
  final boolean[] fallback;

  final Map<Rail, RailHealth> health = new ConcurrentHashMap<>();
  final Map<Rail, RailLoad> loads = new ConcurrentHashMap<>();
  final Map<NicPath, RailHealth> peerDevices = new ConcurrentHashMap<>();
  final Map<String, AtomicLong> peerVersion = new ConcurrentHashMap<>();
  private final Map<String, PeerRails> peers = new ConcurrentHashMap<>();
  private volatile Consumer<String> newPeers = server -> {};

  /**
   * @param localDevices local device names, by index
   * @param localTransports each local device's provider ({@code soft}, {@code ibverbs}), by index;
   *     soft devices beside devices of another provider are fallback devices
   * @param failuresToPause consecutive penalizing failures that hold a rail down
   * @param holdDownNanos how long a held-down rail or peer device stays held down
   * @param probeWindowNanos how long a probe may take before the next selection may probe again (at
   *     least the time a QP takes to give up on a dead device, so that probes of one device never
   *     overlap)
   * @param clock nanosecond clock ({@code System::nanoTime}, or a fake in tests)
   * @param affinity which peer devices each local device is wired to
   * @param carriers the carrier of a rail's slices (the owner of its endpoint), asked once per rail
   *     when the rails to a peer are built; selection prefers, within {@link #LOCAL_OWNER_NANOS}, a
   *     rail whose carrier runs on the submitting thread, else one whose carrier polls now (taken
   *     by its next cycle, with no thread woken)
   */
  public RailSelector(
      List<String> localDevices,
      List<String> localTransports,
      int failuresToPause,
      long holdDownNanos,
      long probeWindowNanos,
      LongSupplier clock,
      RailAffinity affinity,
      Function<Rail, Carrier> carriers) {
    this.affinity = affinity;
    this.carriers = carriers;
    this.localTransports = List.copyOf(localTransports);
    boolean mixed = localTransports.stream().anyMatch(t -> !FALLBACK.equals(t));
    this.fallback = new boolean[localTransports.size()];
    for (int i = 0; i < fallback.length; i++) {
      fallback[i] = mixed && FALLBACK.equals(localTransports.get(i));
    }
    this.localDevices = List.copyOf(localDevices);
    this.localPortDown = new AtomicIntegerArray(localDevices.size());
    this.failuresToPause = Math.max(1, failuresToPause);
    this.holdDownNanos = holdDownNanos;
    this.probeWindowNanos = probeWindowNanos;
    this.clock = clock;
  }

  /**
   * Port-down makes every rail of the device ineligible at once; port-up makes them eligible again.
   *
   * @param deviceIndex local device index
   * @param up the new port state
   */
  public void setLocalPortUp(int deviceIndex, boolean up) {
    localPortDown.set(deviceIndex, up ? 0 : 1);
  }

  /**
   * @param listener told the server name of each peer the first time rails to it are built (the
   *     engine then watches that peer's device states); called on the selecting thread, must not
   *     block
   */
  public void onNewPeer(Consumer<String> listener) {
    newPeers = listener;
  }

  /**
   * Holds every rail to a peer device down until {@link #releasePeerDevice}: the peer said the
   * device is down (a pushed device state). New slices keep off it at once.
   *
   * @param path the peer's device
   * @param cause what a transfer that finds nothing else is told
   * @return true when it was not held down by the peer's word already
   */
  public boolean holdPeerDeviceDown(NicPath path, VteException cause) {
    return peerDevices
        .computeIfAbsent(path, p -> new RailHealth())
        .holdUntilReleased(clock.getAsLong(), cause);
  }

  /**
   * Ends a hold-down by the peer's word: the peer said the device is back. A single slice probes it
   * before the others use it.
   *
   * @param path the peer's device
   * @return true when it was held down by the peer's word
   */
  public boolean releasePeerDevice(NicPath path) {
    RailHealth h = peerDevices.get(path);
    return h != null && h.release(clock.getAsLong());
  }

  /**
   * Ends the hold-downs by the peer's word of every device of a peer, each with a probe.
   *
   * @param serverName the peer
   */
  public void releasePeerDevices(String serverName) {
    long now = clock.getAsLong();
    peerDevices.forEach(
        (path, h) -> {
          if (path.server().equals(serverName)) {
            h.release(now);
          }
        });
  }

  /**
   * @return how many peer devices are held down by their peer's word now
   */
  public int peerDevicesHeldByPeer() {
    int n = 0;
    for (RailHealth h : peerDevices.values()) {
      n += h.isHeldByPeer() ? 1 : 0;
    }
    return n;
  }

  /**
   * @return bytes of the slices routed to any rail and not yet ended (0 once every slice has ended:
   *     each slice is released exactly once)
   */
  public long outstandingBytes() {
    long sum = 0;
    for (RailLoad l : loads.values()) {
      sum += l.outstanding();
    }
    return sum;
  }

  /**
   * @return every rail selected for so far, with its health and backlog now (the atomics selection
   *     reads), in local device, peer server and peer device order
   */
  public List<RailStatus> snapshot() {
    List<RailStatus> out = new ArrayList<>(health.size());
    health.forEach(
        (rail, railHealth) -> {
          RailHealth device = peerDevices.get(rail.peerNicPath());
          RailLoad load = loads.get(rail);
          out.add(
              new RailStatus(
                  rail.localDeviceName(),
                  rail.peerServerName(),
                  rail.peerDeviceName(),
                  localPortDown.get(rail.localDeviceIndex()) == 0,
                  railHealth.isHeld(),
                  device != null && device.isHeld(),
                  load == null ? 0 : load.outstanding(),
                  load == null ? 0 : load.moved(),
                  railHealth.lastCause()));
        });
    out.sort(
        Comparator.comparingInt((RailStatus r) -> localDevices.indexOf(r.localDevice()))
            .thenComparing(RailStatus::peerServer)
            .thenComparing(RailStatus::peerDevice));
    return out;
  }

  /**
   * @param segment a peer segment
   * @return its rails (rebuilt when the segment's descriptor changed; health is kept per rail and
   *     per peer device; the devices a descriptor newer than any seen before describes as down are
   *     held down)
   */
  public PeerRails railsFor(PeerSegment segment) {
    PeerRails current = peers.get(segment.serverName());
    if (current != null && current.segment() == segment) {
      return current;
    }
    PeerRails fresh = new PeerRails(this, segment);
    fresh.publishDeviceStates();
    if (peers.put(segment.serverName(), fresh) == null) {
      newPeers.accept(segment.serverName());
    }
    return fresh;
  }

  @Override
  public Routes routesTo(PeerSegment segment, int bufferIndex) {
    return railsFor(segment);
  }
}
