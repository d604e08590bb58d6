package io.vte.engine.impl.rail;

import io.vertx.core.Future;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.engine.impl.segment.SegmentCache;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The peer's own word on its devices, asked for after a failure implicated one of them: a fresh
 * descriptor of the peer (the lookups of many failing slices are shared) is handed to rail
 * selection, which holds down the devices it describes as down. Retries to that peer wait for the
 * answer, so that they keep off devices that died together (a round trip on the control plane
 * instead of another QP timeout). Thread-safe.
 */
public final class PeerDeviceStates {

  private final SegmentCache segments;
  private final RailSelector rails;
  private final Map<String, Future<?>> asking = new ConcurrentHashMap<>();

  /**
   * @param segments where fresh descriptors come from
   * @param rails told of every fresh descriptor
   */
  public PeerDeviceStates(SegmentCache segments, RailSelector rails) {
    this.segments = segments;
    this.rails = rails;
  }

  /**
   * @param seg a segment one of whose devices a failure implicated
   * @return completes (failed or not) once rail selection has the fresh descriptor or the lookup
   *     failed
   */
  public Future<?> ask(PeerSegment seg) {
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
}
