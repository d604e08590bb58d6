package io.vte.engine.impl;

import io.vte.verbs.MemoryRegion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/** Registers "memory regions" that only hand out keys and remember whether they are closed. */
final class FakeDeviceMemory implements DeviceMemory {

  private final int devices;
  private final AtomicInteger nextKey = new AtomicInteger(100);
  final List<Region> regions = new ArrayList<>();

  FakeDeviceMemory(int devices) {
    this.devices = devices;
  }

  @Override
  public int deviceCount() {
    return devices;
  }

  @Override
  public synchronized MemoryRegion register(int deviceIndex, long address, long length, int accessFlags) {
    Region r = new Region(deviceIndex, address, length, accessFlags, nextKey.getAndIncrement());
    regions.add(r);
    return r;
  }

  @Override
  public void deregister(int deviceIndex, MemoryRegion region) {
    region.close();
  }

  synchronized long openRegions() {
    return regions.stream().filter(r -> !r.closed).count();
  }

  static final class Region implements MemoryRegion {
    final int device;
    final long address;
    final long length;
    final int access;
    final int key;
    volatile boolean closed;

    Region(int device, long address, long length, int access, int key) {
      this.device = device;
      this.address = address;
      this.length = length;
      this.access = access;
      this.key = key;
    }

    @Override
    public long address() {
      return address;
    }

    @Override
    public long length() {
      return length;
    }

    @Override
    public int lkey() {
      return key;
    }

    @Override
    public int rkey() {
      return key + 1_000_000;
    }

    @Override
    public int accessFlags() {
      return access;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
