package io.vte.metadata.impl;

import io.vte.handshake.proto.SegmentDescriptor;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Cached descriptors, each with the store revision at which it was known to be current. An update
 * only replaces an entry seen at a lower revision, so a lookup answer that raced with a watch event
 * cannot bring back a stale or deleted descriptor. A deletion leaves a tombstone that remembers its
 * revision. Reads are safe from any thread. Shared by the stores (p2p here, etcd in {@code
 * vte-metadata-etcd}).
 */
public final class DescriptorCache {

  private record Entry(SegmentDescriptor descriptor, long revision) {}

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

  /**
   * @param name segment name
   * @return the cached descriptor, or null when absent or deleted
   */
  public SegmentDescriptor get(String name) {
    Entry e = entries.get(name);
    return e == null ? null : e.descriptor;
  }

  /**
   * Caches {@code descriptor} as current at {@code revision} unless a newer fact is known.
   *
   * @param name segment name
   * @param descriptor the descriptor
   * @param revision the store revision it was current at
   * @return true when the entry changed
   */
  public boolean put(String name, SegmentDescriptor descriptor, long revision) {
    return update(name, new Entry(descriptor, revision));
  }

  /**
   * Records that {@code name} was deleted (or became unusable) at {@code revision} unless a newer
   * fact is known.
   *
   * @param name segment name
   * @param revision the store revision of the deletion
   * @return true when the entry changed
   */
  public boolean remove(String name, long revision) {
    return update(name, new Entry(null, revision));
  }

  /**
   * @return the names with an entry, deleted ones included
   */
  public java.util.Set<String> names() {
    return java.util.Set.copyOf(entries.keySet());
  }

  /** Forgets everything, e.g. when the watch history was compacted away. */
  public void clear() {
    entries.clear();
  }

  /**
   * @return the number of live (non-deleted) descriptors
   */
  public int size() {
    return (int) entries.values().stream().filter(e -> e.descriptor != null).count();
  }

  private boolean update(String name, Entry next) {
    boolean[] changed = new boolean[1];
    entries.compute(
        name,
        (k, old) -> {
          if (old == null || next.revision > old.revision) {
            changed[0] = true;
            return next;
          }
          return old;
        });
    return changed[0];
  }
}
