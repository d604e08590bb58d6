package io.vte.engine.impl.segment;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.shm.SharedMemoryFile;
import io.vte.handshake.HandshakeValidator;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.VerbsException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The engine's registered buffers, as an interval map keyed by start address. Registration and
 * removal are serialized; lookups are lock-free and allocate nothing. Thread-safe.
 */
public final class MemoryRegistry {

  private final DeviceMemory devices;
  private final ConcurrentSkipListMap<Long, LocalBuffer> buffers = new ConcurrentSkipListMap<>();
  private final Runnable onChange;

  /**
   * @param devices where buffers are registered
   * @param onChange told after every registration and removal (e.g. to republish the descriptor)
   */
  public MemoryRegistry(DeviceMemory devices, Runnable onChange) {
    this.devices = devices;
    this.onChange = onChange;
  }

  /**
   * Registers {@code [address, address + length)} on every device.
   *
   * @param address start, non-zero
   * @param length bytes, positive
   * @param location location tag, 1 to {@link HandshakeValidator#MAX_NAME_LENGTH} characters (peers
   *     reject a descriptor with a longer one)
   * @return the buffer
   * @throws VteException INVALID_ARGUMENT naming the bad value (also memory a device cannot pin as
   *     asked: unmapped, or read-only), OVERLAPPING_REGISTRATION naming both ranges,
   *     DEVICE_UNAVAILABLE when a device refuses for another reason
   */
  public LocalBuffer register(long address, long length, String location) {
    return register(address, length, location, null);
  }

  /**
   * Registers a shared-memory buffer on every device; unregistering it revokes peers' access to the
   * file and removes it.
   *
   * @param file the buffer's file, which this registry owns from now on
   * @param location location tag (see {@link #register(long, long, String)})
   * @return the buffer
   * @throws VteException as {@link #register(long, long, String)}
   */
  public LocalBuffer register(SharedMemoryFile file, String location) {
    return register(file.address(), file.length(), location, file);
  }

  private LocalBuffer register(
      long address, long length, String location, SharedMemoryFile sharedMemory) {
    checkLocation(location);
    if (address == 0 || length <= 0 || address + length < address) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "cannot register address 0x" + Long.toHexString(address) + " length " + length);
    }
    LocalBuffer buffer;
    synchronized (this) {
      LocalBuffer overlap = overlapping(address, length);
      if (overlap != null) {
        throw new VteException(
            ErrorCode.OVERLAPPING_REGISTRATION,
            "range 0x" + Long.toHexString(address) + "+" + length + " overlaps " + overlap);
      }
      MemoryRegion[] regions = new MemoryRegion[devices.deviceCount()];
      try {
        for (int i = 0; i < regions.length; i++) {
          regions[i] = devices.register(i, address, length, AccessFlags.ALL_REMOTE);
        }
      } catch (RuntimeException e) {
        for (int i = 0; i < regions.length; i++) {
          if (regions[i] != null) {
            devices.deregister(i, regions[i]);
          }
        }
        throw e instanceof VerbsException refused ? refusedByDevice(address, length, refused) : e;
      }
      buffer = new LocalBuffer(address, length, location, regions, this, sharedMemory);
      buffers.put(address, buffer);
    }
    onChange.run();
    return buffer;
  }

  /**
   * The typed form of a device's refusal: memory the kernel cannot pin as asked (unmapped, or
   * read-only while peers may write it) is the caller's INVALID_ARGUMENT; anything else is the
   * device's (DEVICE_UNAVAILABLE). The provider's message, which names the cause, is kept.
   */
  private static VteException refusedByDevice(long address, long length, VerbsException e) {
    ErrorCode code =
        switch (e.error()) {
          case INVALID_ARGUMENT, ACCESS -> ErrorCode.INVALID_ARGUMENT;
          default -> ErrorCode.DEVICE_UNAVAILABLE;
        };
    return new VteException(
        code,
        "cannot register 0x" + Long.toHexString(address) + "+" + length + ": " + e.getMessage(),
        e);
  }

  /**
   * Registers a direct buffer's whole capacity on every device and holds the buffer until it is
   * deregistered, so the garbage collector cannot free memory a NIC may still write.
   *
   * @param memory a direct buffer
   * @param location location tag, as {@link #register(long, long, String)}
   * @return the registered buffer
   * @throws VteException as {@link #register(long, long, String)}
   */
  public LocalBuffer register(ByteBuffer memory, String location) {
    try {
      LocalBuffer buffer = register(DirectMemory.address(memory), memory.capacity(), location);
      buffer.holdUntilClosed(memory);
      return buffer;
    } finally {
      Reference.reachabilityFence(memory);
    }
  }

  /**
   * @param location a buffer's location tag
   * @throws VteException INVALID_ARGUMENT unless it has 1 to {@link
   *     HandshakeValidator#MAX_NAME_LENGTH} characters
   */
  public static void checkLocation(String location) {
    if (location == null
        || location.isEmpty()
        || location.length() > HandshakeValidator.MAX_NAME_LENGTH) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "location must be 1.."
              + HandshakeValidator.MAX_NAME_LENGTH
              + " chars: "
              + (location == null ? "null" : "'" + HandshakeValidator.abbreviate(location) + "'"));
    }
  }

  /**
   * Deregisters a buffer: its regions close, so later remote accesses to it fail on this side.
   *
   * @param buffer the buffer
   * @throws VteException NOT_REGISTERED when it is not (or no longer) registered here; TIMED_OUT
   *     when a peer still copies in its shared memory after 5 s (it is deregistered and revoked all
   *     the same)
   */
  public void unregister(Object buffer) {
    synchronized (this) {
      if (!(buffer instanceof LocalBuffer)
          || !buffers.remove(((LocalBuffer) buffer).address(), buffer)) {
        throw new VteException(
            ErrorCode.NOT_REGISTERED, "not a buffer registered with this engine: " + buffer);
      }
      try {
        ((LocalBuffer) buffer).close(devices);
      } finally {
        // gone from the registry even when revoking a shared-memory buffer timed out
        onChange.run();
      }
    }
  }

  /**
   * @param address start
   * @param length bytes
   * @return the buffer wholly containing the range, or null
   */
  public LocalBuffer find(long address, long length) {
    Long start = buffers.floorKey(address);
    if (start == null) {
      return null;
    }
    LocalBuffer b = buffers.get(start);
    return b != null && b.contains(address, length) ? b : null;
  }

  /**
   * @param buffer a buffer
   * @return true when it is currently registered here
   */
  public boolean owns(Object buffer) {
    return buffer instanceof LocalBuffer local && local.isRegisteredIn(this);
  }

  /**
   * @return the registered buffers in address order
   */
  public List<LocalBuffer> snapshot() {
    return new ArrayList<>(buffers.values());
  }

  /** Deregisters everything (engine close). */
  public void clear() {
    synchronized (this) {
      for (LocalBuffer b : buffers.values()) {
        try {
          b.close(devices);
        } catch (VteException e) {
          // a peer still copying after the revocation wait: its regions are gone all the same
        }
      }
      buffers.clear();
    }
  }

  private LocalBuffer overlapping(long address, long length) {
    Map.Entry<Long, LocalBuffer> below = buffers.floorEntry(address + length - 1);
    if (below != null && below.getValue().address() + below.getValue().length() > address) {
      return below.getValue();
    }
    return null;
  }
}
