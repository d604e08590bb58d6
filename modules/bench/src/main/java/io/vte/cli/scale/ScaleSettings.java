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
 * @param handshakesInFlight the engines' {@code maxHandshakesInFlight}: connect requests each owner
 *     has in flight at most
 */
record ScaleSettings(
    int nics,
    int workers,
    int requestBytes,
    int batch,
    Duration window,
    Duration idle,
    String metadataUri,
    double timeScale,
    int handshakesInFlight) {

  /** Each request's deadline at time scale 1. */
  private static final Duration REQUEST_DEADLINE = Duration.ofSeconds(60);

  /** The engines' default bound of connect requests in flight per owner. */
  static final int DEFAULT_HANDSHAKES_IN_FLIGHT = new EngineOptions().getMaxHandshakesInFlight();

  /**
   * @param o a host's engine options
   * @return them, with the handshake deadline and the QP timeout multiplied by the time scale (the
   *     waits of the run's steps scale with {@link #scaled} too) and the run's bound of handshakes
   *     in flight
   */
  EngineOptions applyTo(EngineOptions o) {
    return o.setHandshakeDeadline(scaled(o.getHandshakeDeadline()))
        .setQpTimeout(scaled(o.getQpTimeout()))
        .setMaxHandshakesInFlight(handshakesInFlight);
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
