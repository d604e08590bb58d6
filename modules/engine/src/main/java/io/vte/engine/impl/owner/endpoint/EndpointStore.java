package io.vte.engine.impl.owner.endpoint;

import io.vte.handshake.NicPath;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * One owner's endpoints by {@link EndpointKey}, bounded, least recently used first for eviction.
 * Eviction only ever picks an idle endpoint (connected, nothing in flight, nothing queued); while
 * every endpoint is busy the owner stores more than the capacity and trims back as they go idle.
 * The endpoints slices use are found by peer path alone (no key made per slice); the one passive
 * end of this NIC's connection to itself sits beside them. Owner-confined.
 */
public final class EndpointStore {

  private final int capacity;
  private final LinkedHashMap<NicPath, Endpoint> byPeer;
  private Endpoint loopbackPassive;

  /**
   * @param capacity endpoints kept before idle ones are evicted
   */
  public EndpointStore(int capacity) {
    this.capacity = capacity;
    this.byPeer = new LinkedHashMap<>(Math.min(capacity, 1024) * 2, 0.75f, true);
  }

  /**
   * @return the endpoint that slices to {@code peer} use, marking it recently used, or null
   */
  public Endpoint get(NicPath peer) {
    return byPeer.get(peer);
  }

  /**
   * @return the endpoint stored under {@code key}, or null
   */
  public Endpoint get(EndpointKey key) {
    return key.loopbackPassive() ? loopbackPassive : byPeer.get(key.peer());
  }

  /**
   * Inserts or replaces the endpoint of its key. The caller made room first ({@link #isFull()}).
   */
  public void put(Endpoint endpoint) {
    EndpointKey key = endpoint.key();
    if (key.loopbackPassive()) {
      loopbackPassive = endpoint;
    } else {
      byPeer.put(key.peer(), endpoint);
    }
  }

  /**
   * Removes {@code endpoint} if it still is the one stored under its key; a newer endpoint of the
   * same key is never removed through a stale reference.
   *
   * @return true when it was removed
   */
  public boolean remove(Endpoint endpoint) {
    EndpointKey key = endpoint.key();
    if (!key.loopbackPassive()) {
      return byPeer.remove(key.peer(), endpoint);
    }
    if (loopbackPassive != endpoint) {
      return false;
    }
    loopbackPassive = null;
    return true;
  }

  /**
   * @return true when {@code endpoint} is the one stored under its key
   */
  public boolean holds(Endpoint endpoint) {
    EndpointKey key = endpoint.key();
    return (key.loopbackPassive() ? loopbackPassive : byPeer.get(key.peer())) == endpoint;
  }

  /**
   * @return true when a new endpoint needs room first
   */
  public boolean isFull() {
    return size() >= capacity;
  }

  /**
   * @return true when more endpoints are stored than the capacity (every one was busy when the last
   *     ones came)
   */
  public boolean isOverCapacity() {
    return size() > capacity;
  }

  /**
   * @return the least recently used idle endpoint, or null when every endpoint is busy
   */
  public Endpoint evictionCandidate() {
    Iterator<Endpoint> it = byPeer.values().iterator();
    while (it.hasNext()) {
      Endpoint e = it.next();
      if (e.isIdle()) {
        return e;
      }
    }
    return loopbackPassive != null && loopbackPassive.isIdle() ? loopbackPassive : null;
  }

  /**
   * @return a copy of the endpoints, safe to iterate while retiring them
   */
  public List<Endpoint> snapshot() {
    List<Endpoint> all = new ArrayList<>(byPeer.values());
    if (loopbackPassive != null) {
      all.add(loopbackPassive);
    }
    return all;
  }

  /**
   * @return number of endpoints
   */
  public int size() {
    return byPeer.size() + (loopbackPassive != null ? 1 : 0);
  }
}
