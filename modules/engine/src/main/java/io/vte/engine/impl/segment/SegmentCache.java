package io.vte.engine.impl.segment;

import io.vertx.core.Future;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Peer segments by name, looked up once and shared; failed lookups are not kept. A refresh reads
 * the backend itself (not the metadata store's own cache, which a slow watch may leave behind).
 * Thread-safe.
 */
public final class SegmentCache {

  private final Function<String, Future<SegmentDescriptor>> lookup;
  private final Function<String, Future<SegmentDescriptor>> lookupFresh;
  private final Map<String, Future<PeerSegment>> segments = new ConcurrentHashMap<>();

  /**
   * @param lookup the metadata lookup (p2p: GetSegment on the peer; etcd: the watch-fed cache)
   * @param lookupFresh the lookup that bypasses any cache of the store, for {@link #refresh}
   */
  public SegmentCache(
      Function<String, Future<SegmentDescriptor>> lookup,
      Function<String, Future<SegmentDescriptor>> lookupFresh) {
    this.lookup = lookup;
    this.lookupFresh = lookupFresh;
  }

  /**
   * @param name segment name
   * @return the cached segment, or a lookup shared by concurrent callers
   */
  public Future<PeerSegment> open(String name) {
    return forgetOnFailure(name, segments.computeIfAbsent(name, n -> load(n, lookup)));
  }

  /**
   * @param seen a segment a caller holds
   * @return the cached descriptor of the same name when it is newer than {@code seen} (by version),
   *     else {@code seen}
   */
  public PeerSegment newest(PeerSegment seen) {
    Future<PeerSegment> current = segments.get(seen.name());
    if (current != null && current.succeeded() && current.result().version() > seen.version()) {
      return current.result();
    }
    return seen;
  }

  /**
   * Looks the segment up again because {@code stale} lacks something a caller needs. Callers that
   * find the same descriptor stale at the same time share one lookup: a lookup in flight is joined,
   * and a cached descriptor newer than {@code stale} (by version) is returned as is. Otherwise a
   * new lookup in the backend itself (bypassing the store's cache) replaces the cached entry, so
   * that re-opening the segment returns the fresh descriptor; if it fails, the descriptor cached
   * before stays.
   *
   * @param stale the segment found stale
   * @return the fresh segment
   */
  public Future<PeerSegment> refresh(PeerSegment stale) {
    AtomicReference<Future<PeerSegment>> previous = new AtomicReference<>();
    Future<PeerSegment> fresh =
        segments.compute(
            stale.name(),
            (name, current) -> {
              if (current != null
                  && (!current.isComplete()
                      || current.succeeded() && current.result().version() > stale.version())) {
                return current;
              }
              if (current != null && current.succeeded()) {
                previous.set(current);
              }
              return load(name, lookupFresh);
            });
    // A lookup that fails (the peer is down or restarting) leaves the last good descriptor cached:
    // requests made against it, by kept handles too, still resolve and fail for the peer's own
    // reason instead of a range missing from the older descriptor the handle holds.
    fresh.onFailure(
        e -> segments.computeIfPresent(stale.name(), (n, f) -> f == fresh ? previous.get() : f));
    return fresh;
  }

  /**
   * @param name a segment whose descriptor changed or vanished
   */
  public void invalidate(String name) {
    segments.remove(name);
  }

  /** Forgets everything. */
  public void clear() {
    segments.clear();
  }

  private static Future<PeerSegment> load(
      String name, Function<String, Future<SegmentDescriptor>> from) {
    return from.apply(name).map(d -> new PeerSegment(name, d));
  }

  private Future<PeerSegment> forgetOnFailure(String name, Future<PeerSegment> f) {
    f.onFailure(e -> segments.remove(name, f));
    return f;
  }
}
