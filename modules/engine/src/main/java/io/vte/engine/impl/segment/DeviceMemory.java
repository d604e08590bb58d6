package io.vte.engine.impl.segment;

import io.vte.verbs.MemoryRegion;

/** Registers memory on the engine's local devices (their protection domains), by device index. */
public interface DeviceMemory {

  /**
   * @return number of local devices
   */
  int deviceCount();

  /**
   * @param deviceIndex local device index
   * @param address start address
   * @param length bytes
   * @param accessFlags {@link io.vte.verbs.AccessFlags}
   * @return the region
   */
  MemoryRegion register(int deviceIndex, long address, long length, int accessFlags);

  /**
   * Deregisters a region made by {@link #register}.
   *
   * @param deviceIndex local device index
   * @param region the region
   */
  void deregister(int deviceIndex, MemoryRegion region);
}
