package io.vte.engine.impl.rail;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.verbs.Gid;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The verbs rails towards one peer segment, each a {@link Route} bound to the owner that carries
 * its slices (found once, when the rails are built): selection returns the route, and routing only
 * hands the slice to it. Health is kept per rail and per peer device by the {@link RailSelector}
 * across descriptors of the peer. Thread-safe, lock-free.
 */
public final class PeerRails implements Routes {

  private final RailSelector selector;
  private final PeerSegment segment;
  private final Rail[] rails;
  private final RailRoute[] routes;
  private final int[] remoteIndex;
  private final RailHealth[] railHealth;
  private final RailHealth[] deviceHealth;
  private final RailLoad[] load;

  /**
   * Each rail's rank: 0 for the best (wired, not a fallback); a rail carries slices only while no
   * rail of a lower rank is usable.
   */
  private final int[] rank;

  /** The ranks the rails have, ascending. */
  private final int[] tiers;

  private final AtomicInteger cursor = new AtomicInteger();

  PeerRails(RailSelector selector, PeerSegment segment) {
    this.selector = selector;
    this.segment = segment;
    int remote = segment.devices().size();
    List<int[]> pairs = new ArrayList<>(selector.localDevices.size() * remote);
    // Interleave local devices so consecutive picks change both ends of the rail.
    for (int k = 0; k < selector.localDevices.size() * remote; k++) {
      int local = k % selector.localDevices.size();
      int peer = (k / selector.localDevices.size() + local) % remote;
      if (sameProvider(selector.localTransports.get(local), peerTransport(segment, peer))) {
        pairs.add(new int[] {local, peer});
      }
    }
    int n = pairs.size();
    rails = new Rail[n];
    routes = new RailRoute[n];
    remoteIndex = new int[n];
    railHealth = new RailHealth[n];
    deviceHealth = new RailHealth[n];
    load = new RailLoad[n];
    rank = new int[n];
    boolean[][] wired = wiring(segment);
    boolean[] present = new boolean[RailSelector.FALLBACK_RANK + RailSelector.UNWIRED_RANK + 1];
    for (int k = 0; k < n; k++) {
      int local = pairs.get(k)[0];
      int peer = pairs.get(k)[1];
      rails[k] =
          new Rail(
              local,
              selector.localDevices.get(local),
              segment.serverName(),
              segment.devices().get(peer).name());
      remoteIndex[k] = peer;
      routes[k] = new RailRoute(k, rails[k], selector.carriers.apply(rails[k]));
      railHealth[k] = selector.health.computeIfAbsent(rails[k], r -> new RailHealth());
      deviceHealth[k] =
          selector.peerDevices.computeIfAbsent(rails[k].peerNicPath(), p -> new RailHealth());
      load[k] =
          selector.loads.computeIfAbsent(
              rails[k], r -> new RailLoad(RailSelector.RATE_WINDOW_NANOS));
      rank[k] =
          (selector.fallback[local] ? RailSelector.FALLBACK_RANK : 0)
              + (wired[local][peer] ? 0 : RailSelector.UNWIRED_RANK);
      present[rank[k]] = true;
    }
    int count = 0;
    for (boolean p : present) {
      count += p ? 1 : 0;
    }
    tiers = new int[count];
    for (int r = 0, t = 0; r < present.length; r++) {
      if (present[r]) {
        tiers[t++] = r;
      }
    }
  }

  /**
   * @return the provider of the peer's device: the device's own word, else the segment's (older
   *     peers name only that)
   */
  private static String peerTransport(PeerSegment segment, int peer) {
    if (segment.descriptor().getDevicesCount() > peer) {
      String own = segment.descriptor().getDevices(peer).getTransport();
      if (!own.isEmpty()) {
        return own;
      }
    }
    return segment.descriptor().getTransport();
  }

  private static boolean sameProvider(String local, String peer) {
    return local.isEmpty() || peer.isEmpty() || local.equals(peer);
  }

  /**
   * @return for each local device, the peer devices it prefers
   */
  private boolean[][] wiring(PeerSegment segment) {
    List<Gid> peerGids = new ArrayList<>(segment.devices().size());
    for (int p = 0; p < segment.devices().size(); p++) {
      byte[] gid =
          segment.descriptor().getDevicesCount() > p
              ? segment.descriptor().getDevices(p).getGid().toByteArray()
              : new byte[0];
      peerGids.add(gid.length == 16 ? Gid.fromBytes(gid) : Gid.ZERO);
    }
    boolean[][] wired = new boolean[selector.localDevices.size()][];
    for (int l = 0; l < wired.length; l++) {
      wired[l] = selector.affinity.preferred(l, peerGids);
    }
    return wired;
  }

  /**
   * Holds down every device this descriptor describes as inactive, unless a newer descriptor of the
   * peer was seen already: the peer's word reaches the rails of older handles too, and ends with a
   * probe like any hold-down.
   */
  void publishDeviceStates() {
    AtomicLong seen =
        selector.peerVersion.computeIfAbsent(
            segment.serverName(), p -> new AtomicLong(Long.MIN_VALUE));
    long v = seen.get();
    while (segment.version() > v) {
      if (seen.compareAndSet(v, segment.version())) {
        long now = selector.clock.getAsLong();
        for (int k = 0; k < rails.length; k++) {
          if (!segment.devices().get(remoteIndex[k]).active()) {
            deviceHealth[k].holdDown(
                now,
                selector.holdDownNanos,
                new VteException(
                    ErrorCode.DEVICE_UNAVAILABLE,
                    segment + " describes " + rails[k].peerNicPath() + " as down"));
          }
        }
        return;
      }
      v = seen.get();
    }
  }

  /**
   * @return the segment they were built for
   */
  public PeerSegment segment() {
    return segment;
  }

  /**
   * Picks a rail for one slice and counts the slice into its backlog: the route's {@link
   * Route#release} must follow exactly once, when the slice ends or if it is never routed. A rail
   * whose hold-down has ended gets the slice as its probe; otherwise the usable rail where the
   * slice is expected to finish first wins, ties going round-robin.
   *
   * @param bufferIndex index of the remote buffer in the segment
   * @param avoid a rail to skip unless it is the only usable one, or null
   * @param length the slice's bytes
   * @return the chosen rail's route; when every eligible rail leads to a held-down peer device or
   *     is being probed, the one held down longest (a probe ahead of time, or a slice joining the
   *     probe in flight, rather than failing the slice); null when there is none
   */
  @Override
  public RailRoute select(int bufferIndex, Route avoid, int length) {
    int n = rails.length;
    if (n == 0) {
      return null;
    }
    long now = selector.clock.getAsLong();
    int start = Math.floorMod(cursor.getAndIncrement(), n);
    // A rail can be held down between the look and the claim; each such loss takes one rail out,
    // so n passes.
    for (int pass = 0; pass < n; pass++) {
      int k = -1;
      for (int t = 0; t < tiers.length && k < 0; t++) {
        k = pick(bufferIndex, avoid, length, start, now, tiers[t]);
      }
      if (k < 0) {
        break;
      }
      if (claim(k, now)) {
        load[k].acquire(length, now);
        return routes[k];
      }
    }
    int k = -1;
    for (int t = 0; t < tiers.length && k < 0; t++) {
      k = heldLongest(bufferIndex, now, tiers[t]);
    }
    if (k < 0) {
      return null;
    }
    load[k].acquire(length, now);
    return routes[k];
  }

  /**
   * The rail a caller pinned a request to, when it can carry the request: its local port is up, the
   * peer does not describe its device as down, and the remote buffer has a key on it. Its
   * hold-downs do not count: a pinned request probes the rail. Nothing is counted into the rail's
   * backlog ({@link Route#acquire} does that per slice).
   *
   * @param bufferIndex index of the remote buffer in the segment
   * @param localDevice the local device's name
   * @param remoteDevice the peer device's name
   * @return the rail's route
   * @throws VteException INVALID_ARGUMENT when no rail joins the two devices (either is unknown, or
   *     they are of different providers), NO_RAIL naming why the rail cannot carry it
   */
  @Override
  public RailRoute pinned(int bufferIndex, String localDevice, String remoteDevice) {
    for (int k = 0; k < rails.length; k++) {
      if (rails[k].localDeviceName().equals(localDevice)
          && rails[k].peerDeviceName().equals(remoteDevice)) {
        String why =
            selector.localPortDown.get(rails[k].localDeviceIndex()) != 0
                ? "the port of local device " + localDevice + " is down"
                : !segment.devices().get(remoteIndex[k]).active()
                    ? segment + " describes its device " + remoteDevice + " as down"
                    : !segment.hasRkey(bufferIndex, remoteIndex[k])
                        ? "the remote buffer has no key on device " + remoteDevice
                        : null;
        if (why != null) {
          throw new VteException(
              ErrorCode.NO_RAIL,
              "the pinned rail "
                  + localDevice
                  + " -> "
                  + rails[k].peerNicPath()
                  + " is unusable: "
                  + why);
        }
        return routes[k];
      }
    }
    List<String> remote = segment.devices().stream().map(d -> d.name()).toList();
    throw new VteException(
        ErrorCode.INVALID_ARGUMENT,
        "no rail "
            + localDevice
            + " -> "
            + remoteDevice
            + " to "
            + segment
            + ": local devices "
            + selector.localDevices
            + ", the peer's devices "
            + remote
            + " (a rail joins devices of one provider)");
  }

  /**
   * @param maxRank look at rails of this rank or a lower one only
   * @return the rail to claim: a usable rail past its hold-down (the probe), else the one with the
   *     least expected finish time (or one whose owner runs on this thread, else one whose owner
   *     polls, expected to finish at most {@link RailSelector#LOCAL_OWNER_NANOS} later), else
   *     {@code avoid} when usable; -1 when none is usable
   */
  private int pick(int bufferIndex, Route avoid, int length, int start, long now, int maxRank) {
    int n = rails.length;
    double fastest = 0;
    for (int k = 0; k < n; k++) {
      double npb = load[k].currentNanosPerByte(now);
      if (npb > 0 && (fastest == 0 || npb < fastest)) {
        fastest = npb;
      }
    }
    int best = -1;
    int fallback = -1;
    double bestFinish = 0;
    int local = -1;
    double localFinish = 0;
    int awake = -1;
    double awakeFinish = 0;
    for (int i = 0; i < n; i++) {
      int k = (start + i) % n;
      if (rank[k] > maxRank
          || !eligible(k, bufferIndex)
          || !railHealth[k].isUsable(now)
          || !deviceHealth[k].isUsable(now)) {
        continue;
      }
      if (routes[k] == avoid) {
        fallback = k;
      } else if (railHealth[k].isHeld() || deviceHealth[k].isHeld()) {
        return k;
      } else {
        double npb = load[k].currentNanosPerByte(now);
        // A rail never measured is taken to be as fast as the fastest, so that it gets measured.
        double finish =
            (load[k].outstanding() + length) * (npb > 0 ? npb : fastest > 0 ? fastest : 1);
        if (best < 0 || finish < bestFinish) {
          best = k;
          bestFinish = finish;
        }
        if ((local < 0 || finish < localFinish) && routes[k].carrier.runsHere()) {
          local = k;
          localFinish = finish;
        } else if (local < 0 && (awake < 0 || finish < awakeFinish) && routes[k].carrier.polls()) {
          awake = k;
          awakeFinish = finish;
        }
      }
    }
    if (local >= 0 && localFinish - bestFinish <= RailSelector.LOCAL_OWNER_NANOS) {
      return local;
    }
    if (local < 0 && awake >= 0 && awakeFinish - bestFinish <= RailSelector.LOCAL_OWNER_NANOS) {
      return awake;
    }
    return best >= 0 ? best : fallback;
  }

  private boolean claim(int k, long now) {
    return railHealth[k].tryUse(now, selector.probeWindowNanos)
        && deviceHealth[k].tryUse(now, selector.probeWindowNanos);
  }

  /**
   * The eligible rail whose peer device has been held down longest, when only device hold-downs and
   * probes in flight are left. A rail being probed takes the slice too: while the probe of the only
   * rail left is in flight, the other slices join it rather than fail their requests (they fail
   * over like the probe if it fails); a rail held down and not being probed is kept out.
   */
  private int heldLongest(int bufferIndex, long now, int maxRank) {
    int best = -1;
    for (int k = 0; k < rails.length; k++) {
      boolean probing = railHealth[k].isProbing();
      if (rank[k] <= maxRank
          && eligible(k, bufferIndex)
          && (railHealth[k].isUsable(now) || probing)
          && (deviceHealth[k].isHeld() || probing)
          && (best < 0
              || deviceHealth[k].lastFailureAt() - deviceHealth[best].lastFailureAt() < 0)) {
        best = k;
      }
    }
    if (best >= 0 && deviceHealth[best].isHeld()) {
      deviceHealth[best].forceProbe();
    }
    return best;
  }

  /**
   * @return the cause of the latest failure among the rails held down now, or null when none is
   */
  @Override
  public VteException pausedCause() {
    long now = selector.clock.getAsLong();
    RailHealth latest = latestHeld(railHealth, latestHeld(deviceHealth, null, now), now);
    return latest == null ? null : latest.lastCause();
  }

  /**
   * A rail is eligible while its local port is up and the peer's buffer has a key on its peer
   * device. A peer device the descriptor describes as down is not excluded here but held down
   * ({@link #publishDeviceStates()}), so that its hold-down ends with a probe: the peer publishes a
   * descriptor when its port comes back, but nothing makes this engine read it, and a device
   * excluded for as long as the descriptor it last read says so would never be used again.
   */
  private boolean eligible(int k, int bufferIndex) {
    return selector.localPortDown.get(rails[k].localDeviceIndex()) == 0
        && segment.hasRkey(bufferIndex, remoteIndex[k]);
  }

  private static RailHealth latestHeld(RailHealth[] healths, RailHealth latest, long now) {
    for (RailHealth h : healths) {
      if (h.lastCause() != null
          && !h.isUsable(now)
          && (latest == null || h.lastFailureAt() - latest.lastFailureAt() > 0)) {
        latest = h;
      }
    }
    return latest;
  }

  /** A rail of these, bound to the carrier of its slices: what {@link #select} returns. */
  public final class RailRoute implements Route {

    private final int k;
    private final Rail rail;
    private final Carrier carrier;

    private RailRoute(int k, Rail rail, Carrier carrier) {
      this.k = k;
      this.rail = rail;
      this.carrier = carrier;
    }

    /**
     * @return the rail
     */
    public Rail rail() {
      return rail;
    }

    @Override
    public Carrier carrier() {
      return carrier;
    }

    @Override
    public void assign(Slice slice, LocalBuffer local, int bufferIndex) {
      slice.assign(
          this,
          rail,
          local.lkey(rail.localDeviceIndex()),
          segment.rkey(bufferIndex, remoteIndex[k]));
    }

    @Override
    public void acquire(int length) {
      load[k].acquire(length, selector.clock.getAsLong());
    }

    @Override
    public void release(int length, boolean moved) {
      load[k].release(length, moved, selector.clock.getAsLong());
    }

    @Override
    public void onSuccess() {
      railHealth[k].onSuccess();
      deviceHealth[k].onSuccess();
    }

    /**
     * {@inheritDoc}
     *
     * <p>Only penalizing statuses ({@link SliceStatus#penalizesRail}) count; one that implicates
     * the peer device holds down every rail to it at once, unless the local port is known down
     * (then the local device is to blame and its port state already keeps its rails out), and
     * counts against the rail too, so that a rail probed because nothing else was left is given up
     * after repeated failures; RAIL_DOWN holds the rail down at once. The cause is kept for {@link
     * #pausedCause()}.
     */
    @Override
    public boolean onFailure(int status, VteException cause) {
      if (!SliceStatus.penalizesRail(status)) {
        return false;
      }
      long now = selector.clock.getAsLong();
      boolean peerDevice = SliceStatus.implicatesPeerDevice(status);
      if (peerDevice) {
        if (selector.localPortDown.get(rail.localDeviceIndex()) != 0) {
          return false;
        }
        deviceHealth[k].holdDown(now, selector.holdDownNanos, cause);
      }
      int failures = status == SliceStatus.RAIL_DOWN ? 1 : selector.failuresToPause;
      railHealth[k].onFailure(now, failures, selector.holdDownNanos, cause);
      return peerDevice;
    }

    @Override
    public boolean typedFailures() {
      return false;
    }

    @Override
    public String toString() {
      return rail.localDeviceName() + "->" + rail.peerNicPath();
    }
  }
}
