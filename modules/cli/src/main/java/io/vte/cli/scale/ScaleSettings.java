package io.vte.cli.scale;

import io.vte.api.EngineOptions;
import java.time.Duration;

/**
 * The knobs of a scale run, the same for every host count.
 *
 * @param nics soft devices per host
 * @param workers owners per device
 * @param requestBytes bytes per request
 * @param batch requests per batch in the all-to-all window
 * @param window how long the all-to-all traffic runs
 * @param idle the engines' idle connection time
 * @param metadataUri {@code p2p} or {@code etcd://host:port}
 * @param timeScale what the protocol's timeouts are multiplied by (handshake deadline, QP timeout,
 *     request deadline): 1, or more on a machine with fewer cores than the run has host JVMs
 */
record ScaleSettings(
    int nics,
    int workers,
    int requestBytes,
    int batch,
    Duration window,
    Duration idle,
    String metadataUri,
    double timeScale) {

  /** Each request's deadline at time scale 1. */
  private static final Duration REQUEST_DEADLINE = Duration.ofSeconds(60);

  /**
   * @param o a host's engine options
   * @return them, with the handshake deadline and the QP timeout multiplied by the time scale (the
   *     waits of the run's steps scale with {@link #scaled} too)
   */
  EngineOptions scaleTimeouts(EngineOptions o) {
    return o.setHandshakeDeadline(scaled(o.getHandshakeDeadline()))
        .setQpTimeout(scaled(o.getQpTimeout()));
  }

  /**
   * @return each request's deadline, multiplied by the time scale
   */
  Duration requestDeadline() {
    return scaled(REQUEST_DEADLINE);
  }

  /**
   * @param d a wait or deadline at time scale 1
   * @return it, multiplied by the time scale
   */
  Duration scaled(Duration d) {
    return Duration.ofNanos(Math.round(d.toNanos() * timeScale));
  }
}
