package io.vte.engine.impl;

import io.vte.api.VteException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.LongSupplier;

/**
 * Picks a rail (local device, peer device) for each slice among the healthy ones, round-robin in a
 * fixed order so load spreads evenly and tests are deterministic. A rail is skipped while its local port
 * is down, while the peer describes its device as inactive, when the remote buffer has no key on the peer
 * device, and while the rail is paused after repeated errors ({@link RailHealth}). Thread-safe.
 */
public final class RailSelector {

  private final List<String> localDevices;
  private final AtomicIntegerArray localPortDown;
  private final int failuresToPause;
  private final long holdDownNanos;
  private final LongSupplier clock;
  private final Map<Rail, RailHealth> health = new ConcurrentHashMap<>();
  private final Map<String, PeerRails> peers = new ConcurrentHashMap<>();

  /**
   * @param localDevices local device names, by index
   * @param failuresToPause consecutive penalizing failures that pause a rail
   * @param holdDownNanos how long a paused rail stays paused
   * @param clock nanosecond clock ({@code System::nanoTime}, or a fake in tests)
   */
  public RailSelector(List<String> localDevices, int failuresToPause, long holdDownNanos, LongSupplier clock) {
    this.localDevices = List.copyOf(localDevices);
    this.localPortDown = new AtomicIntegerArray(localDevices.size());
    this.failuresToPause = Math.max(1, failuresToPause);
    this.holdDownNanos = holdDownNanos;
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
   * @param segment a peer segment
   * @return its rails (rebuilt when the segment's descriptor changed; health is kept per rail)
   */
  public PeerRails railsFor(PeerSegment segment) {
    PeerRails current = peers.get(segment.serverName());
    if (current != null && current.segment == segment) {
      return current;
    }
    PeerRails fresh = new PeerRails(segment);
    peers.put(segment.serverName(), fresh);
    return fresh;
  }

  /** The rails towards one peer segment. */
  public final class PeerRails {

    private final PeerSegment segment;
    private final Rail[] rails;
    private final int[] remoteIndex;
    private final RailHealth[] railHealth;
    private final AtomicInteger cursor = new AtomicInteger();

    private PeerRails(PeerSegment segment) {
      this.segment = segment;
      int remote = segment.devices().size();
      int n = localDevices.size() * remote;
      rails = new Rail[n];
      remoteIndex = new int[n];
      railHealth = new RailHealth[n];
      // Interleave local devices so consecutive picks change both ends of the rail.
      for (int k = 0; k < n; k++) {
        int local = k % localDevices.size();
        int peer = (k / localDevices.size() + local) % remote;
        rails[k] = new Rail(local, localDevices.get(local), segment.serverName(), segment.devices().get(peer).name());
        remoteIndex[k] = peer;
        railHealth[k] = health.computeIfAbsent(rails[k], r -> new RailHealth());
      }
    }

    /** @return the segment they were built for */
    public PeerSegment segment() {
      return segment;
    }

    /**
     * @param bufferIndex index of the remote buffer in the segment
     * @param avoid a rail to skip unless it is the only usable one, or null
     * @return the next usable rail, or null when there is none
     */
    public Rail select(int bufferIndex, Rail avoid) {
      int n = rails.length;
      if (n == 0) {
        return null;
      }
      long now = clock.getAsLong();
      int start = Math.floorMod(cursor.getAndIncrement(), n);
      Rail fallback = null;
      for (int i = 0; i < n; i++) {
        int k = (start + i) % n;
        if (usable(k, bufferIndex, now)) {
          if (rails[k] != avoid) {
            return rails[k];
          }
          fallback = rails[k];
        }
      }
      return fallback;
    }

    /**
     * @param rail a rail from {@link #select}
     * @return index of its peer device in the segment
     */
    public int remoteDeviceIndex(Rail rail) {
      return remoteIndex[indexOf(rail)];
    }

    /** @param rail a rail whose slice completed */
    public void onSuccess(Rail rail) {
      RailHealth h = railHealth[indexOf(rail)];
      if (h.hasFailures()) {
        h.onSuccess();
      }
    }

    /**
     * @param rail a rail whose slice failed
     * @param status the {@link SliceStatus}; only penalizing ones count, RAIL_DOWN pauses at once
     * @param cause what the failure means for the transfer, kept for {@link #pausedCause()}
     */
    public void onFailure(Rail rail, int status, VteException cause) {
      if (!SliceStatus.penalizesRail(status)) {
        return;
      }
      RailHealth h = railHealth[indexOf(rail)];
      long now = clock.getAsLong();
      int times = status == SliceStatus.RAIL_DOWN ? failuresToPause : 1;
      for (int i = 0; i < times; i++) {
        h.onFailure(now, failuresToPause, holdDownNanos, cause);
      }
    }

    /** @return the cause of the latest failure among the rails paused now, or null when none is paused */
    public VteException pausedCause() {
      long now = clock.getAsLong();
      VteException latest = null;
      long latestAt = 0;
      for (RailHealth h : railHealth) {
        VteException cause = h.lastCause();
        if (cause != null && !h.isUsable(now) && (latest == null || h.lastFailureAt() - latestAt > 0)) {
          latest = cause;
          latestAt = h.lastFailureAt();
        }
      }
      return latest;
    }

    private boolean usable(int k, int bufferIndex, long now) {
      Rail r = rails[k];
      int peer = remoteIndex[k];
      return localPortDown.get(r.localDeviceIndex()) == 0 && segment.devices().get(peer).active()
          && segment.hasRkey(bufferIndex, peer) && railHealth[k].isUsable(now);
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
