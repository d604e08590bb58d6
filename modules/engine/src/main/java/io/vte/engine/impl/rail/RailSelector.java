package io.vte.engine.impl.rail;

import io.vte.api.ErrorCode;
import io.vte.api.RailStatus;
import io.vte.api.VteException;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.handshake.NicPath;
import io.vte.verbs.Gid;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

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
 * describes as down is held down too, for the rails of every handle of that peer. Rails between
 * devices wired to each other ({@link RailAffinity}: the same subnet) are preferred; the others
 * carry slices only while no preferred rail is usable, so that a path the fabric never carries (a
 * management NIC, a rail no router joins) gets no slice while a wired one works. In an engine of
 * two providers, rails run only between devices of one provider (a soft device reaches only a
 * peer's soft devices), and the rails of the local fallback devices (soft verbs beside ibverbs)
 * carry slices only while no rail of the other provider to the peer is usable: slices fail over
 * from RDMA to TCP and move back when an RDMA rail is usable again. Thread-safe, lock-free.
 */
public final class RailSelector {

  /** Busy time one rate sample of a rail spans. */
  static final long RATE_WINDOW_NANOS = 5_000_000L;

  /** The provider whose devices are fallbacks beside another provider's. */
  private static final String FALLBACK = "soft";

  /** Rank added to a rail of a fallback device: above every rail of the other provider. */
  private static final int FALLBACK_RANK = 2;

  /** Rank added to a rail between devices not wired to each other ({@link RailAffinity}). */
  private static final int UNWIRED_RANK = 1;

  /**
   * How much later a slice may be expected to finish on a rail whose owner runs on the submitting
   * thread than on the best rail, and still take it: such a slice is posted by that thread's next
   * owner cycle and completes there, with no thread woken on this side, which saves more than this
   * for a small request; a large or deep load soon has more backlog than this and spreads as
   * before.
   */
  static final long LOCAL_OWNER_NANOS = 400_000L;

  private final List<String> localDevices;
  private final AtomicIntegerArray localPortDown;
  private final int failuresToPause;
  private final long holdDownNanos;
  private final long probeWindowNanos;
  private final LongSupplier clock;
  private final RailAffinity affinity;
  private volatile Predicate<Rail> ownerRunsHere = rail -> false;
  private volatile Predicate<Rail> ownerPolls = rail -> false;

  /** Each local device's provider, by index; empty: any (rails to every peer device). */
  private final List<String> localTransports;

  /** Whether a local device is a fallback device: soft verbs beside devices of another provider. */
  private final boolean[] fallback;

  private final Map<Rail, RailHealth> health = new ConcurrentHashMap<>();
  private final Map<Rail, RailLoad> loads = new ConcurrentHashMap<>();
  private final Map<NicPath, RailHealth> peerDevices = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> peerVersion = new ConcurrentHashMap<>();
  private final Map<String, PeerRails> peers = new ConcurrentHashMap<>();

  /**
   * @param localDevices local device names, by index
   * @param failuresToPause consecutive penalizing failures that hold a rail down
   * @param holdDownNanos how long a held-down rail or peer device stays held down
   * @param probeWindowNanos how long a probe may take before the next selection may probe again (at
   *     least the time a QP takes to give up on a dead device, so that probes of one device never
   *     overlap)
   * @param clock nanosecond clock ({@code System::nanoTime}, or a fake in tests)
   */
  public RailSelector(
      List<String> localDevices,
      int failuresToPause,
      long holdDownNanos,
      long probeWindowNanos,
      LongSupplier clock) {
    this(localDevices, failuresToPause, holdDownNanos, probeWindowNanos, clock, RailAffinity.NONE);
  }

  /**
   * @param localDevices local device names, by index
   * @param failuresToPause consecutive penalizing failures that hold a rail down
   * @param holdDownNanos how long a held-down rail or peer device stays held down
   * @param probeWindowNanos how long a probe may take before the next selection may probe again
   * @param clock nanosecond clock
   * @param affinity which peer devices each local device is wired to
   */
  public RailSelector(
      List<String> localDevices,
      int failuresToPause,
      long holdDownNanos,
      long probeWindowNanos,
      LongSupplier clock,
      RailAffinity affinity) {
    this(
        localDevices,
        Collections.nCopies(localDevices.size(), ""),
        failuresToPause,
        holdDownNanos,
        probeWindowNanos,
        clock,
        affinity);
  }

  /**
   * @param localDevices local device names, by index
   * @param localTransports each local device's provider ({@code soft}, {@code ibverbs}), by index;
   *     soft devices beside devices of another provider are fallback devices
   * @param failuresToPause consecutive penalizing failures that hold a rail down
   * @param holdDownNanos how long a held-down rail or peer device stays held down
   * @param probeWindowNanos how long a probe may take before the next selection may probe again
   * @param clock nanosecond clock
   * @param affinity which peer devices each local device is wired to
   */
  public RailSelector(
      List<String> localDevices,
      List<String> localTransports,
      int failuresToPause,
      long holdDownNanos,
      long probeWindowNanos,
      LongSupplier clock,
      RailAffinity affinity) {
    this.affinity = affinity;
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
   * Lets selection prefer, within {@link #LOCAL_OWNER_NANOS}, a rail whose owner runs on the
   * submitting thread.
   *
   * @param ownerRunsHere tells whether a rail's owner runs on the calling thread ({@link
   *     SliceRouter#ownerRunsHere})
   */
  public void preferOwnersOnTheCallingThread(Predicate<Rail> ownerRunsHere) {
    this.ownerRunsHere = ownerRunsHere;
  }

  /**
   * Lets selection prefer next, within {@link #LOCAL_OWNER_NANOS} and when no owner of a rail runs
   * on the submitting thread, a rail whose owner polls now: its slice is taken by the owner's next
   * cycle, with no thread woken for it. A thread that awaits each result before it submits the next
   * request so keeps finding the owner it used last awake, instead of waking another in turn.
   *
   * @param ownerPolls tells whether a rail's owner polls now ({@link SliceRouter#ownerPolls})
   */
  public void preferPollingOwners(Predicate<Rail> ownerPolls) {
    this.ownerPolls = ownerPolls;
  }

  /**
   * @param segment a peer segment
   * @return its rails (rebuilt when the segment's descriptor changed; health is kept per rail and
   *     per peer device; the devices a descriptor newer than any seen before describes as down are
   *     held down)
   */
  public PeerRails railsFor(PeerSegment segment) {
    PeerRails current = peers.get(segment.serverName());
    if (current != null && current.segment == segment) {
      return current;
    }
    PeerRails fresh = new PeerRails(segment);
    fresh.publishDeviceStates();
    peers.put(segment.serverName(), fresh);
    return fresh;
  }

  /** The rails towards one peer segment. */
  public final class PeerRails {

    private final PeerSegment segment;
    private final Rail[] rails;
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

    private PeerRails(PeerSegment segment) {
      this.segment = segment;
      int remote = segment.devices().size();
      List<int[]> pairs = new ArrayList<>(localDevices.size() * remote);
      // Interleave local devices so consecutive picks change both ends of the rail.
      for (int k = 0; k < localDevices.size() * remote; k++) {
        int local = k % localDevices.size();
        int peer = (k / localDevices.size() + local) % remote;
        if (sameProvider(localTransports.get(local), peerTransport(segment, peer))) {
          pairs.add(new int[] {local, peer});
        }
      }
      int n = pairs.size();
      rails = new Rail[n];
      remoteIndex = new int[n];
      railHealth = new RailHealth[n];
      deviceHealth = new RailHealth[n];
      load = new RailLoad[n];
      rank = new int[n];
      boolean[][] wired = wiring(segment);
      boolean[] present = new boolean[FALLBACK_RANK + UNWIRED_RANK + 1];
      for (int k = 0; k < n; k++) {
        int local = pairs.get(k)[0];
        int peer = pairs.get(k)[1];
        rails[k] =
            new Rail(
                local,
                localDevices.get(local),
                segment.serverName(),
                segment.devices().get(peer).name());
        remoteIndex[k] = peer;
        railHealth[k] = health.computeIfAbsent(rails[k], r -> new RailHealth());
        deviceHealth[k] =
            peerDevices.computeIfAbsent(rails[k].peerNicPath(), p -> new RailHealth());
        load[k] = loads.computeIfAbsent(rails[k], r -> new RailLoad(RATE_WINDOW_NANOS));
        rank[k] = (fallback[local] ? FALLBACK_RANK : 0) + (wired[local][peer] ? 0 : UNWIRED_RANK);
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
      boolean[][] wired = new boolean[localDevices.size()][];
      for (int l = 0; l < wired.length; l++) {
        wired[l] = affinity.preferred(l, peerGids);
      }
      return wired;
    }

    /**
     * Holds down every device this descriptor describes as inactive, unless a newer descriptor of
     * the peer was seen already: the peer's word reaches the rails of older handles too, and ends
     * with a probe like any hold-down.
     */
    private void publishDeviceStates() {
      AtomicLong seen =
          peerVersion.computeIfAbsent(segment.serverName(), p -> new AtomicLong(Long.MIN_VALUE));
      long v = seen.get();
      while (segment.version() > v) {
        if (seen.compareAndSet(v, segment.version())) {
          long now = clock.getAsLong();
          for (int k = 0; k < rails.length; k++) {
            if (!segment.devices().get(remoteIndex[k]).active()) {
              deviceHealth[k].holdDown(
                  now,
                  holdDownNanos,
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
     * Picks a rail for one slice and counts the slice into its backlog: {@link #release} must
     * follow exactly once, when the slice ends or if it is never routed. A rail whose hold-down has
     * ended gets the slice as its probe; otherwise the usable rail where the slice is expected to
     * finish first wins, ties going round-robin.
     *
     * @param bufferIndex index of the remote buffer in the segment
     * @param avoid a rail to skip unless it is the only usable one, or null
     * @param length the slice's bytes
     * @return the chosen rail; when every eligible rail leads to a held-down peer device or is
     *     being probed, the one held down longest (a probe ahead of time, or a slice joining the
     *     probe in flight, rather than failing the slice); null when there is none
     */
    public Rail select(int bufferIndex, Rail avoid, int length) {
      int n = rails.length;
      if (n == 0) {
        return null;
      }
      long now = clock.getAsLong();
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
          return rails[k];
        }
      }
      Rail rail = null;
      for (int t = 0; t < tiers.length && rail == null; t++) {
        rail = heldLongest(bufferIndex, now, tiers[t]);
      }
      if (rail != null) {
        load[indexOf(rail)].acquire(length, now);
      }
      return rail;
    }

    /**
     * The rail a caller pinned a request to, when it can carry the request: its local port is up,
     * the peer does not describe its device as down, and the remote buffer has a key on it. Its
     * hold-downs do not count: a pinned request probes the rail. Nothing is counted into the rail's
     * backlog ({@link #acquire} does that per slice).
     *
     * @param bufferIndex index of the remote buffer in the segment
     * @param localDevice the local device's name
     * @param remoteDevice the peer device's name
     * @return the rail
     * @throws VteException INVALID_ARGUMENT when no rail joins the two devices (either is unknown,
     *     or they are of different providers), NO_RAIL naming why the rail cannot carry it
     */
    public Rail pinned(int bufferIndex, String localDevice, String remoteDevice) {
      for (int k = 0; k < rails.length; k++) {
        if (rails[k].localDeviceName().equals(localDevice)
            && rails[k].peerDeviceName().equals(remoteDevice)) {
          String why =
              localPortDown.get(rails[k].localDeviceIndex()) != 0
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
          return rails[k];
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
              + localDevices
              + ", the peer's devices "
              + remote
              + " (a rail joins devices of one provider)");
    }

    /**
     * Counts a slice of a pinned request into its rail's backlog: {@link #release} must follow
     * exactly once, as after {@link #select}.
     *
     * @param rail a rail from {@link #pinned}
     * @param length the slice's bytes
     */
    public void acquire(Rail rail, int length) {
      load[indexOf(rail)].acquire(length, clock.getAsLong());
    }

    /**
     * @param maxRank look at rails of this rank or a lower one only
     * @return the rail to claim: a usable rail past its hold-down (the probe), else the one with
     *     the least expected finish time (or one whose owner runs on this thread, else one whose
     *     owner polls, expected to finish at most {@link #LOCAL_OWNER_NANOS} later), else {@code
     *     avoid} when usable; -1 when none is usable
     */
    private int pick(int bufferIndex, Rail avoid, int length, int start, long now, int maxRank) {
      Predicate<Rail> here = ownerRunsHere;
      Predicate<Rail> polls = ownerPolls;
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
        if (rails[k] == avoid) {
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
          if ((local < 0 || finish < localFinish) && here.test(rails[k])) {
            local = k;
            localFinish = finish;
          } else if (local < 0 && (awake < 0 || finish < awakeFinish) && polls.test(rails[k])) {
            awake = k;
            awakeFinish = finish;
          }
        }
      }
      if (local >= 0 && localFinish - bestFinish <= LOCAL_OWNER_NANOS) {
        return local;
      }
      if (local < 0 && awake >= 0 && awakeFinish - bestFinish <= LOCAL_OWNER_NANOS) {
        return awake;
      }
      return best >= 0 ? best : fallback;
    }

    private boolean claim(int k, long now) {
      return railHealth[k].tryUse(now, probeWindowNanos)
          && deviceHealth[k].tryUse(now, probeWindowNanos);
    }

    /**
     * The eligible rail whose peer device has been held down longest, when only device hold-downs
     * and probes in flight are left. A rail being probed takes the slice too: while the probe of
     * the only rail left is in flight, the other slices join it rather than fail their requests
     * (they fail over like the probe if it fails); a rail held down and not being probed is kept
     * out.
     */
    private Rail heldLongest(int bufferIndex, long now, int maxRank) {
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
      if (best < 0) {
        return null;
      }
      if (deviceHealth[best].isHeld()) {
        deviceHealth[best].forceProbe();
      }
      return rails[best];
    }

    /**
     * @param rail a rail from {@link #select}
     * @return index of its peer device in the segment
     */
    public int remoteDeviceIndex(Rail rail) {
      return remoteIndex[indexOf(rail)];
    }

    /**
     * Takes an ended slice out of its rail's backlog: exactly once per {@link #select} that
     * returned the rail.
     *
     * @param rail the rail the slice was given
     * @param length the slice's bytes
     * @param moved true when the slice completed (its bytes count towards the rail's rate)
     */
    public void release(Rail rail, int length, boolean moved) {
      load[indexOf(rail)].release(length, moved, clock.getAsLong());
    }

    /**
     * @param rail a rail whose slice completed
     */
    public void onSuccess(Rail rail) {
      int k = indexOf(rail);
      railHealth[k].onSuccess();
      deviceHealth[k].onSuccess();
    }

    /**
     * @param rail a rail whose slice failed
     * @param status the {@link SliceStatus}; only penalizing ones count; one that implicates the
     *     peer device holds down every rail to it at once, unless the local port is known down
     *     (then the local device is to blame and its port state already keeps its rails out), and
     *     counts against the rail too, so that a rail probed because nothing else was left is given
     *     up after repeated failures; RAIL_DOWN holds the rail down at once
     * @param cause what the failure means for the transfer, kept for {@link #pausedCause()}
     * @return true when the failure implicated the peer device (its other devices may have died
     *     too: the peer's descriptor says which)
     */
    public boolean onFailure(Rail rail, int status, VteException cause) {
      if (!SliceStatus.penalizesRail(status)) {
        return false;
      }
      int k = indexOf(rail);
      long now = clock.getAsLong();
      boolean peerDevice = SliceStatus.implicatesPeerDevice(status);
      if (peerDevice) {
        if (localPortDown.get(rail.localDeviceIndex()) != 0) {
          return false;
        }
        deviceHealth[k].holdDown(now, holdDownNanos, cause);
      }
      railHealth[k].onFailure(
          now, status == SliceStatus.RAIL_DOWN ? 1 : failuresToPause, holdDownNanos, cause);
      return peerDevice;
    }

    /**
     * @return the cause of the latest failure among the rails held down now, or null when none is
     */
    public VteException pausedCause() {
      long now = clock.getAsLong();
      RailHealth latest = latestHeld(railHealth, latestHeld(deviceHealth, null, now), now);
      return latest == null ? null : latest.lastCause();
    }

    /**
     * A rail is eligible while its local port is up and the peer's buffer has a key on its peer
     * device. A peer device the descriptor describes as down is not excluded here but held down
     * ({@link #publishDeviceStates()}), so that its hold-down ends with a probe: the peer publishes
     * a descriptor when its port comes back, but nothing makes this engine read it, and a device
     * excluded for as long as the descriptor it last read says so would never be used again.
     */
    private boolean eligible(int k, int bufferIndex) {
      return localPortDown.get(rails[k].localDeviceIndex()) == 0
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

    private int indexOf(Rail rail) {
      for (int k = 0; k < rails.length; k++) {
        if (rails[k] == rail) {
          return k;
        }
      }
      throw new IllegalArgumentException("not a rail of " + segment + ": " + rail);
    }
  }
}
