package io.vte.engine.impl.segment;

import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.VteException;
import io.vte.engine.impl.shm.SharedMemoryFile;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import java.nio.ByteBuffer;

/**
 * A registered buffer as the engine holds it: one memory region per local device, index-aligned.
 */
public final class LocalBuffer implements RegisteredBuffer {

  private final long address;
  private final long length;
  private final String location;
  private final MemoryRegion[] regions;
  private final MemoryRegistry registry;

  /** The file same-host peers map, when the engine allocated the buffer; else null. */
  private final SharedMemoryFile sharedMemory;

  private volatile boolean registered = true;
  private volatile Object owner;

  LocalBuffer(
      long address,
      long length,
      String location,
      MemoryRegion[] regions,
      MemoryRegistry registry,
      SharedMemoryFile sharedMemory) {
    this.registry = registry;
    this.address = address;
    this.length = length;
    this.location = location;
    this.regions = regions;
    this.sharedMemory = sharedMemory;
  }

  @Override
  public ByteBuffer byteBuffer() {
    if (sharedMemory != null) {
      return sharedMemory.byteBuffer();
    }
    if (length > Integer.MAX_VALUE) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          this + " is longer than a ByteBuffer can be (" + Integer.MAX_VALUE + " bytes)");
    }
    return DirectMemory.wrap(address, (int) length);
  }

  /**
   * @return the shared-memory file holding the buffer (allocated by the engine), or null
   */
  public SharedMemoryFile sharedMemory() {
    return sharedMemory;
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
   * @param deviceIndex local device index
   * @return the local key there
   */
  public int lkey(int deviceIndex) {
    return regions[deviceIndex].lkey();
  }

  /**
   * @param deviceIndex local device index
   * @return the remote key there
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

  /**
   * Revokes same-host peers' access (waiting for a copy in progress), then deregisters the regions
   * and lets go of the memory's owner.
   *
   * @throws VteException TIMED_OUT when a peer's copy did not leave the shared memory in time (the
   *     regions are deregistered all the same)
   */
  void close(DeviceMemory devices) {
    registered = false;
    try {
      if (sharedMemory != null) {
        sharedMemory.revoke();
      }
    } finally {
      for (int i = 0; i < regions.length; i++) {
        devices.deregister(i, regions[i]);
      }
      owner = null;
    }
  }

  @Override
  public String toString() {
    return "RegisteredBuffer[0x" + Long.toHexString(address) + "+" + length + " " + location + "]";
  }
}
