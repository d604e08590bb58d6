package io.vte.engine.impl.rail;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.engine.impl.segment.SegmentCache;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.DeviceState;
import io.vte.handshake.proto.DeviceStates;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;

/**
 * The peers' own word on their devices, handed to rail selection. Two sources:
 *
 * <ul>
 *   <li>pushed: each peer this engine has rails to streams its device states (WatchDevices); a
 *       device it calls down is held down for selection at once and the endpoints to it retire, so
 *       that queued and posted slices move to another rail now instead of at the QP timeout; a
 *       device it calls back is released, and one slice probes it before the others use it.
 *       Messages older than the newest seen (by the peer's incarnation, then sequence) are ignored;
 *       when a stream breaks, the hold-downs it made end with a probe (unless the peer said it is
 *       shutting down), so that a device is never kept out on the word of a stream that is gone.
 *   <li>asked: after a failure implicated a device of a peer whose stream is not live, a fresh
 *       descriptor of the peer (the lookups of many failing slices are shared), whose inactive
 *       devices are held down; retries to that peer wait for the answer, so that they keep off
 *       devices that died together (a round trip on the control plane instead of another QP
 *       timeout).
 * </ul>
 *
 * Thread-safe; the messages of one peer arrive in order, one at a time.
 */
public final class PeerDeviceStates {

  private final SegmentCache segments;
  private final RailSelector rails;
  private final BiConsumer<NicPath, VteException> retireEndpoints;
  private final Map<String, Future<?>> asking = new ConcurrentHashMap<>();
  private final Map<String, Watched> watched = new ConcurrentHashMap<>();
  private final LongAdder changes = new LongAdder();
  private final LongAdder stale = new LongAdder();
  private final LongAdder heldDown = new LongAdder();

  /** What the live stream of one peer said last. */
  private record Watched(long incarnation, long sequence, boolean shuttingDown) {}

  /**
   * @param segments where fresh descriptors come from
   * @param rails told of every fresh descriptor and every pushed device state
   * @param retireEndpoints retires the endpoints to a peer device its peer calls down (every local
   *     device's owner of that path)
   */
  public PeerDeviceStates(
      SegmentCache segments,
      RailSelector rails,
      BiConsumer<NicPath, VteException> retireEndpoints) {
    this.segments = segments;
    this.rails = rails;
    this.retireEndpoints = retireEndpoints;
  }

  /**
   * @param seg a segment one of whose devices a failure implicated
   * @return completes (failed or not) once rail selection has the fresh descriptor or the lookup
   *     failed; at once when the peer's device states stream is live (it tells of every change
   *     itself)
   */
  public Future<?> ask(PeerSegment seg) {
    if (watched.containsKey(seg.serverName())) {
      return Future.succeededFuture();
    }
    Future<?> f = segments.refresh(segments.newest(seg)).onSuccess(rails::railsFor);
    if (!f.isComplete()) {
      asking.put(seg.serverName(), f);
      f.onComplete(ar -> asking.remove(seg.serverName(), f));
    }
    return f;
  }

  /**
   * @param seg a peer segment
   * @return the question in flight to its peer, or null when there is none
   */
  public Future<?> pending(PeerSegment seg) {
    return asking.get(seg.serverName());
  }

  /**
   * A message of a peer's device states stream: applied unless an equal or newer one was (a
   * heartbeat repeats the last sequence; a dead incarnation's message is older).
   *
   * @param serverName the peer the stream is from
   * @param states its message
   */
  public void onPushed(String serverName, DeviceStates states) {
    Watched last = watched.get(serverName);
    if (last != null
        && (states.getIncarnation() < last.incarnation()
            || states.getIncarnation() == last.incarnation()
                && states.getSequence() <= last.sequence())) {
      if (states.getIncarnation() < last.incarnation() || states.getSequence() < last.sequence()) {
        stale.increment();
      }
      return;
    }
    watched.put(
        serverName,
        new Watched(states.getIncarnation(), states.getSequence(), states.getShuttingDown()));
    changes.increment();
    for (DeviceState device : states.getDevicesList()) {
      NicPath path = NicPath.of(serverName, device.getName());
      if (device.getActive() && !states.getShuttingDown()) {
        rails.releasePeerDevice(path);
      } else {
        VteException cause =
            new VteException(
                ErrorCode.DEVICE_UNAVAILABLE,
                serverName
                    + " says its device "
                    + device.getName()
                    + " is down ("
                    + (states.getShuttingDown() ? "shutting down" : device.getReason())
                    + ")");
        if (rails.holdPeerDeviceDown(path, cause)) {
          heldDown.increment();
        }
        retireEndpoints.accept(path, cause);
      }
    }
  }

  /**
   * A peer's stream ended: its hold-downs end with a probe (unless it said it is shutting down),
   * and failures ask for descriptors again until a new stream is live.
   *
   * @param serverName the peer
   */
  public void onStreamLost(String serverName) {
    Watched last = watched.remove(serverName);
    if (last != null && !last.shuttingDown()) {
      rails.releasePeerDevices(serverName);
    }
  }

  /**
   * @return pushed messages applied (snapshots and changes; heartbeats and stale ones not)
   */
  public long pushedChanges() {
    return changes.sum();
  }

  /**
   * @return pushed messages ignored as older than one applied before
   */
  public long staleMessages() {
    return stale.sum();
  }

  /**
   * @return times a pushed message held a peer device down
   */
  public long pushedHoldDowns() {
    return heldDown.sum();
  }

  /**
   * @return how many peers' device states streams are live
   */
  public int watchedPeers() {
    return watched.size();
  }
}
