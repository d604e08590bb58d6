package io.vte.engine.impl.rail;

/**
 * The request a slice belongs to, as the owner layer sees it. Implemented by the engine layer;
 * called by owners on their event loops, so implementations are thread-safe and never block.
 */
public interface SliceCallback {

  /**
   * The slice ended. Called exactly once per routing of the slice ({@link Routing}).
   *
   * @param slice the slice (may be resubmitted after this call returns)
   * @param status a {@link SliceStatus}
   * @param cause detail for a failure (e.g. the handshake rejection), may be null
   */
  void onSliceDone(Slice slice, int status, Throwable cause);

  /**
   * @return true when the request was canceled, timed out or failed: owners drop its queued slices
   *     unposted with {@link SliceStatus#ABANDONED}
   */
  boolean isAbandoned();
}
