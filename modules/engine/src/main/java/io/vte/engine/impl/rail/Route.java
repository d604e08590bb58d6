package io.vte.engine.impl.rail;

import io.vte.api.VteException;
import io.vte.engine.impl.segment.LocalBuffer;

/**
 * The way one slice goes, chosen once by its {@link Routes}: a path to the peer's buffer and the
 * {@link Carrier} that moves the slice on it. Routing hands the slice to the route's carrier and
 * decides nothing again; the slice's end is counted back into the same route. Implemented by each
 * transport (a verbs rail of {@link RailSelector}, the same-host rail). Thread-safe.
 */
public interface Route {

  /**
   * @return who moves this route's slices
   */
  Carrier carrier();

  /**
   * Gives a slice this route, with the keys of its buffers on it; counts an attempt.
   *
   * @param slice the slice
   * @param local its local buffer
   * @param bufferIndex the index of the remote buffer in the peer's segment
   */
  void assign(Slice slice, LocalBuffer local, int bufferIndex);

  /**
   * Counts a slice into this route's backlog, for a route taken without {@link Routes#select} (a
   * pinned one): {@link #release} follows exactly once.
   *
   * @param length the slice's bytes
   */
  void acquire(int length);

  /**
   * Takes an ended (or never routed) slice out of this route's backlog: exactly once per slice
   * {@link Routes#select} or {@link #acquire} counted in.
   *
   * @param length the slice's bytes
   * @param moved true when the slice completed (its bytes count towards the route's rate)
   */
  void release(int length, boolean moved);

  /** A slice of this route completed. */
  void onSuccess();

  /**
   * A slice of this route failed.
   *
   * @param status its {@link SliceStatus}
   * @param cause what the failure means for the transfer
   * @return true when the failure implicated the peer device (its other devices may have died too:
   *     the peer's descriptor says which)
   */
  boolean onFailure(int status, VteException cause);

  /**
   * @return true when this route's failures come with the transfer's own typed cause (its code is
   *     the request's), rather than a completion status to interpret
   */
  boolean typedFailures();
}
