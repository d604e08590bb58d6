package io.vte.engine.impl.rail;

import io.vte.api.VteException;

/**
 * The routes of one {@link Transport} to one peer segment, looked up once per request: picks a
 * {@link Route} for each slice among the usable ones. Thread-safe, lock-free.
 */
public interface Routes {

  /**
   * Picks a route for one slice and counts the slice into its backlog: {@link Route#release} must
   * follow exactly once.
   *
   * @param bufferIndex index of the remote buffer in the segment
   * @param avoid a route to skip unless it is the only usable one, or null
   * @param length the slice's bytes
   * @return the route, or null when this transport has none usable now
   */
  Route select(int bufferIndex, Route avoid, int length);

  /**
   * The route a caller pinned a request to ({@link io.vte.api.TransferOptions#setRail}).
   *
   * @param bufferIndex index of the remote buffer in the segment
   * @param localDevice the local device's name
   * @param remoteDevice the peer device's name
   * @return the route, null when this transport has no named devices
   * @throws VteException INVALID_ARGUMENT or NO_RAIL naming why the pin cannot be honoured
   */
  default Route pinned(int bufferIndex, String localDevice, String remoteDevice) {
    return null;
  }

  /**
   * @return why this transport's routes are held down now (the latest failure), null when none is
   */
  default VteException pausedCause() {
    return null;
  }
}
