package io.vte.verbs.soft.impl;

import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;

/**
 * Hands out ByteBuffer views of registered memory for socket reads and writes without allocating per
 * frame: it keeps one duplicate of the last region's view and moves its window. Regions it cannot view
 * (none given, or larger than 2 GiB) get a fresh wrapper. One per connection direction; NIC thread only.
 */
final class RegionViews {

  private SoftMr owner;
  private ByteBuffer view;

  /**
   * @param region the region holding {@code [address, address + length)}, or null when unknown
   * @return a buffer whose position..limit is exactly that range
   */
  ByteBuffer window(SoftMr region, long address, int length) {
    if (region == null || region.view() == null || !region.covers(address, length)) {
      return DirectMemory.wrap(address, length);
    }
    if (region != owner) {
      view = region.view().duplicate();
      owner = region;
    }
    int offset = (int) (address - region.address());
    view.clear();
    view.position(offset);
    view.limit(offset + length);
    return view;
  }

  /** Forgets the cached view (the connection closed). */
  void clear() {
    owner = null;
    view = null;
  }
}
