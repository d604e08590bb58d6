package io.vte.verbs.ibv;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A native pointer that hot-path calls borrow and {@code close()} retires: after {@link #retire()}
 * returns, no borrower still uses the pointer, so the caller may free it. Borrowing costs two
 * atomic operations and never blocks; retiring waits only for calls already inside the native code
 * (which never block).
 */
final class NativeHandle {

  private final long address;
  private final AtomicInteger borrowers = new AtomicInteger();
  private final AtomicBoolean retired = new AtomicBoolean();

  /**
   * @param address a non-zero native pointer
   */
  NativeHandle(long address) {
    this.address = address;
  }

  /**
   * @return the pointer, to use until {@link #release()}; 0 when retired (do not release then)
   */
  long borrow() {
    borrowers.incrementAndGet();
    if (retired.get()) {
      borrowers.decrementAndGet();
      return 0;
    }
    return address;
  }

  /** Ends a successful {@link #borrow()}. */
  void release() {
    borrowers.decrementAndGet();
  }

  /**
   * @return the pointer, for control-plane calls made by the object's owner
   */
  long address() {
    return address;
  }

  /**
   * @return true once retired
   */
  boolean isRetired() {
    return retired.get();
  }

  /**
   * Stops new borrows and waits for current ones to end.
   *
   * @return the pointer to free, or 0 when already retired (so a close is idempotent)
   */
  long retire() {
    if (!retired.compareAndSet(false, true)) {
      return 0;
    }
    while (borrowers.get() != 0) {
      Thread.onSpinWait();
    }
    return address;
  }
}
