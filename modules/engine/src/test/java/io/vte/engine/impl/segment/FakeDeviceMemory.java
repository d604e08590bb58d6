package io.vte.engine.impl.segment;

import io.vte.verbs.MemoryRegion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Registers "memory regions" that only hand out keys and remember whether they are closed. */
public final class FakeDeviceMemory implements DeviceMemory {

  private final int devices;
  private final AtomicInteger nextKey = new AtomicInteger(100);
  final List<Region> regions = new ArrayList<>();

  public FakeDeviceMemory(int devices) {
    this.devices = devices;
  }

  @Override
  public int deviceCount() {
    return devices;
  }

  @Override
  public synchronized MemoryRegion register(
      int deviceIndex, long address, long length, int accessFlags) {
    Region r =
        new Region(
            deviceIndex,
            address,
            length,
            accessFlags,
            nextKey.getAndIncrement(),
            new AtomicBoolean());
    regions.add(r);
    return r;
  }

  @Override
  public void deregister(int deviceIndex, MemoryRegion region) {
    region.close();
  }

  synchronized long openRegions() {
    return regions.stream().filter(r -> !r.closed().get()).count();
  }

  /**
   * A region that only hands out keys (rkey = lkey + 1,000,000) and remembers whether it was
   * closed.
   */
  record Region(
      int device, long address, long length, int accessFlags, int lkey, AtomicBoolean closed)
      implements MemoryRegion {

    @Override
    public int rkey() {
      return lkey + 1_000_000;
    }

    @Override
    public void close() {
      closed.set(true);
    }
  }
}
