package io.vte.engine.impl;

import io.vte.api.RegisteredBuffer;
import io.vte.verbs.MemoryRegion;

/**
 * A registered buffer as the engine holds it: one memory region per local device, index-aligned.
 */
public final class LocalBuffer implements RegisteredBuffer {

  private final long address;
  private final long length;
  private final String location;
  private final MemoryRegion[] regions;
  private final MemoryRegistry registry;
  private volatile boolean registered = true;
  private volatile Object owner;

  LocalBuffer(
      long address, long length, String location, MemoryRegion[] regions, MemoryRegistry registry) {
    this.registry = registry;
    this.address = address;
    this.length = length;
    this.location = location;
    this.regions = regions;
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
  public String location() {
    return location;
  }

  @Override
  public boolean isRegistered() {
    return registered;
  }

  /**
   * @param r a registry
   * @return true while this buffer is registered in {@code r} (a map-free check for the hot path)
   */
  boolean isRegisteredIn(MemoryRegistry r) {
    return registry == r && registered;
  }

  /**
   * @param deviceIndex local device index @return the local key there
   */
  public int lkey(int deviceIndex) {
    return regions[deviceIndex].lkey();
  }

  /**
   * @param deviceIndex local device index @return the remote key there
   */
  public int rkey(int deviceIndex) {
    return regions[deviceIndex].rkey();
  }

  /**
   * @return number of devices it is registered on
   */
  public int deviceCount() {
    return regions.length;
  }

  /**
   * @param start first address
   * @param bytes length
   * @return true when {@code [start, start + bytes)} lies inside this buffer
   */
  public boolean contains(long start, long bytes) {
    return start >= address && bytes >= 0 && start - address <= length - bytes;
  }

  /**
   * @param memory the object that owns this buffer's memory (a direct ByteBuffer), kept reachable
   *     until {@link #close(DeviceMemory)}
   */
  void holdUntilClosed(Object memory) {
    owner = memory;
  }

  void close(DeviceMemory devices) {
    registered = false;
    owner = null;
    for (int i = 0; i < regions.length; i++) {
      devices.deregister(i, regions[i]);
    }
  }

  @Override
  public String toString() {
    return "RegisteredBuffer[0x" + Long.toHexString(address) + "+" + length + " " + location + "]";
  }
}
