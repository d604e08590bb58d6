package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.DirectMemory;
import io.vte.verbs.soft.impl.SoftMr;

/**
 * One access to registered memory under its guards: a region's ({@link SoftMr#acquire()}) and a
 * further {@link AccessGate} (a responder QP's), either optional. An access is one copy or one
 * socket call; when a guard is closed nothing is touched.
 */
public final class GuardedAccess {

  private GuardedAccess() {}

  /**
   * Copies {@code n} bytes under {@code region}'s guard.
   *
   * @param region the registered region that holds {@code src} or {@code dst}, or null when neither
   *     is one
   * @return false, having copied nothing, when the region is closed
   */
  public static boolean copy(SoftMr region, long src, long dst, int n) {
    return copy(region, null, src, dst, n);
  }

  /**
   * Copies {@code n} bytes under {@code region}'s guard and {@code gate}.
   *
   * @param gate a further gate the copy passes, or null
   * @return false, having copied nothing, when the region or the gate is closed
   */
  public static boolean copy(SoftMr region, AccessGate gate, long src, long dst, int n) {
    if (!acquire(region, gate)) {
      return false;
    }
    try {
      DirectMemory.copy(src, dst, n);
    } finally {
      release(region, gate);
    }
    return true;
  }

  /**
   * Starts one access under {@code gate} and {@code region} (either may be null).
   *
   * @return false, having acquired nothing, when either is closed
   */
  public static boolean acquire(SoftMr region, AccessGate gate) {
    if (gate != null && !gate.acquire()) {
      return false;
    }
    if (region != null && !region.acquire()) {
      if (gate != null) {
        gate.release();
      }
      return false;
    }
    return true;
  }

  /** Ends the access a successful {@link #acquire(SoftMr, AccessGate)} started. */
  public static void release(SoftMr region, AccessGate gate) {
    if (region != null) {
      region.release();
    }
    if (gate != null) {
      gate.release();
    }
  }
}
