package io.vte.verbs.ibv;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import java.util.ArrayList;
import java.util.List;

/**
 * The registered off-heap memory one QP's READ-backs land in ({@link ReadBackVerifier}): one slot
 * per verified work request the QP can have in flight, each as large as the largest verified work
 * request so far (a power of two, at least {@value #MIN_SLOT} bytes). Nothing is allocated until
 * the first verified work request; a larger one later replaces the area with one of larger slots,
 * and the old area is deregistered and freed once the READ-backs in it completed. So a verified
 * post never lacks scratch: it costs {@code depth x largest slice} bytes per verifying QP (32 x 64
 * KiB = 2 MiB with an engine's defaults). Guarded by its verifier's lock.
 */
final class ReadBackScratch {

  /** The smallest slot, in bytes. */
  static final long MIN_SLOT = 4096;

  /** One registered allocation of {@code slots} slots of {@code slotBytes}. */
  static final class Area {

    private final long address;
    private final long slotBytes;
    private final MemoryRegion mr;
    private int inFlight;
    private boolean replaced;

    private Area(long address, long slotBytes, MemoryRegion mr) {
      this.address = address;
      this.slotBytes = slotBytes;
      this.mr = mr;
    }

    /**
     * @param slot a slot index
     * @return the address of that slot
     */
    long slot(int slot) {
      return address + slot * slotBytes;
    }

    /**
     * @return the local key of the area
     */
    int lkey() {
      return mr.lkey();
    }

    private void free() {
      mr.close();
      DirectMemory.free(address);
    }
  }

  private final IbvProtectionDomain pd;
  private final int slots;
  private final List<Area> live = new ArrayList<>(2);
  private Area current;

  /**
   * @param pd the QP's domain, which registers the areas
   * @param slots verified work requests the QP can have in flight
   */
  ReadBackScratch(IbvProtectionDomain pd, int slots) {
    this.pd = pd;
    this.slots = slots;
  }

  /**
   * Takes a slot for a READ-back of {@code length} bytes; release it with {@link #release}.
   *
   * @param length bytes to read back
   * @return the area whose slot (by the caller's ring index) to use
   */
  Area acquire(int length) {
    Area a = current;
    if (a == null || a.slotBytes < Integer.toUnsignedLong(length)) {
      a = grow(Integer.toUnsignedLong(length));
    }
    a.inFlight++;
    return a;
  }

  /**
   * @param area an area from {@link #acquire}, whose READ-back completed (or was not posted)
   */
  void release(Area area) {
    if (--area.inFlight == 0 && area.replaced) {
      live.remove(area);
      area.free();
    }
  }

  private Area grow(long length) {
    long slotBytes = Math.max(MIN_SLOT, Long.highestOneBit(Math.max(1, length - 1)) << 1);
    long bytes = slotBytes * slots;
    long address = DirectMemory.allocate(bytes);
    MemoryRegion mr;
    try {
      mr = pd.registerMemory(address, bytes, AccessFlags.LOCAL_WRITE);
    } catch (RuntimeException e) {
      DirectMemory.free(address);
      throw e;
    }
    Area old = current;
    current = new Area(address, slotBytes, mr);
    live.add(current);
    if (old != null) {
      old.replaced = true;
      if (old.inFlight == 0) {
        live.remove(old);
        old.free();
      }
    }
    return current;
  }

  /** Deregisters and frees every area; call after the QP is destroyed (no DMA into them). */
  void close() {
    for (Area a : live) {
      a.free();
    }
    live.clear();
    current = null;
  }
}
