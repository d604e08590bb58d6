package io.vte.mooncake;

import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.List;

/**
 * The buffers a {@link MooncakeTarget} lets Mooncake peers read and write: an immutable snapshot,
 * replaced whole on each change, so that the data sessions look ranges up without locks.
 */
final class ExposedBuffers {

  private volatile List<RegisteredBuffer> buffers = List.of();

  /**
   * Adds a buffer.
   *
   * @throws VteException NOT_REGISTERED when it is no longer registered, INVALID_ARGUMENT when it
   *     is longer than 2 GiB - 1 (the largest range one view can address), OVERLAPPING_REGISTRATION
   *     when it overlaps a buffer already exposed
   */
  synchronized void add(RegisteredBuffer buffer) {
    if (!buffer.isRegistered()) {
      throw new VteException(ErrorCode.NOT_REGISTERED, buffer + " is not registered");
    }
    if (buffer.length() <= 0 || buffer.length() > Integer.MAX_VALUE) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "a Mooncake target exposes buffers of 1.." + Integer.MAX_VALUE + " bytes, got " + buffer);
    }
    for (RegisteredBuffer b : buffers) {
      if (buffer.address() < b.address() + b.length()
          && b.address() < buffer.address() + buffer.length()) {
        throw new VteException(
            ErrorCode.OVERLAPPING_REGISTRATION, buffer + " overlaps the exposed " + b);
      }
    }
    List<RegisteredBuffer> next = new ArrayList<>(buffers);
    next.add(buffer);
    buffers = List.copyOf(next);
  }

  /**
   * @return whether {@code buffer} was exposed (it no longer is)
   */
  synchronized boolean remove(RegisteredBuffer buffer) {
    List<RegisteredBuffer> next = new ArrayList<>(buffers);
    boolean removed = next.remove(buffer);
    buffers = List.copyOf(next);
    return removed;
  }

  /**
   * @return the exposed buffers now
   */
  List<RegisteredBuffer> snapshot() {
    return buffers;
  }

  /**
   * @return the exposed, still registered buffer holding all of {@code [address, address + size)},
   *     or null (also for size 0)
   */
  RegisteredBuffer find(long address, long size) {
    if (size <= 0) {
      return null;
    }
    for (RegisteredBuffer b : buffers) {
      // Unsigned: Mooncake's addresses and sizes are u64.
      if (Long.compareUnsigned(address, b.address()) >= 0
          && size <= b.length()
          && Long.compareUnsigned(address - b.address(), b.length() - size) <= 0
          && b.isRegistered()) {
        return b;
      }
    }
    return null;
  }

  /**
   * @return whether {@code buffer} is still exposed and registered
   */
  boolean holds(RegisteredBuffer buffer) {
    return buffer.isRegistered() && buffers.contains(buffer);
  }
}
