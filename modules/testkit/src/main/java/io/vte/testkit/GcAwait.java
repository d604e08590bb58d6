package io.vte.testkit;

import java.lang.ref.WeakReference;
import java.time.Duration;

/** Waits, with a deadline, for the garbage collector to clear a weak reference. */
public final class GcAwait {

  private GcAwait() {}

  /**
   * Runs {@link System#gc()} until {@code ref} is cleared.
   *
   * @param ref the reference
   * @param deadline longest wait
   * @throws AssertionError when it is still set at the deadline
   */
  public static void untilCleared(WeakReference<?> ref, Duration deadline) {
    Await.until(
        "the garbage collector clears " + ref,
        deadline,
        () -> {
          System.gc();
          return ref.get() == null;
        });
  }
}
