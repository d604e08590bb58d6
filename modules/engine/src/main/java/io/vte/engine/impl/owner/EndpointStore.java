package io.vte.engine.impl.owner;

import io.vte.handshake.NicPath;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * One owner's endpoints by peer NIC path, bounded, least recently used first for eviction. Eviction
 * only ever picks an idle endpoint (connected, nothing in flight, nothing queued); while every
 * endpoint is busy the owner stores more than the capacity and trims back as they go idle.
 * Owner-confined.
 */
final class EndpointStore {

  private final int capacity;
  private final LinkedHashMap<NicPath, Endpoint> byPath;

  EndpointStore(int capacity) {
    this.capacity = capacity;
    this.byPath = new LinkedHashMap<>(Math.min(capacity, 1024) * 2, 0.75f, true);
  }

  /**
   * @return the endpoint for {@code path}, marking it recently used, or null
   */
  Endpoint get(NicPath path) {
    return byPath.get(path);
  }

  /**
   * Inserts or replaces the endpoint of its path. The caller made room first ({@link #isFull()}).
   */
  void put(Endpoint endpoint) {
    byPath.put(endpoint.path, endpoint);
  }

  /**
   * Removes {@code endpoint} if it still is the one stored for {@code path}; a newer endpoint of
   * the same path is never removed through a stale reference.
   *
   * @return true when it was removed
   */
  boolean remove(NicPath path, Endpoint endpoint) {
    return byPath.remove(path, endpoint);
  }

  /**
   * @return true when a new endpoint needs room first
   */
  boolean isFull() {
    return byPath.size() >= capacity;
  }

  /**
   * @return true when more endpoints are stored than the capacity (every one was busy when the last
   *     ones came)
   */
  boolean isOverCapacity() {
    return byPath.size() > capacity;
  }

  /**
   * @return the least recently used idle endpoint, or null when every endpoint is busy
   */
  Endpoint evictionCandidate() {
    Iterator<Endpoint> it = byPath.values().iterator();
    while (it.hasNext()) {
      Endpoint e = it.next();
      if (e.isIdle()) {
        return e;
      }
    }
    return null;
  }

  /**
   * @return a copy of the endpoints, safe to iterate while retiring them
   */
  List<Endpoint> snapshot() {
    return new ArrayList<>(byPath.values());
  }

  /**
   * @return number of endpoints
   */
  int size() {
    return byPath.size();
  }
}
