package io.vte.cli.bench;

import io.vertx.core.json.JsonObject;
import io.vte.api.RailStatus;
import io.vte.api.TransferEngine;

/**
 * Bytes an engine's rails moved in a measured window, the same-host rail apart from the network
 * rails, and whether the window was meant to take the same-host rail: then a network byte is a
 * measured request that fell back to the network, and the run fails. Warm-up, read-backs and other
 * runs between the windows are not counted.
 *
 * @param sameHost bytes the same-host rail moved in the windows
 * @param network bytes the network rails moved in the windows
 * @param sameHostExpected the windows ran against a buffer the same-host rail reaches
 */
public record RailBytes(long sameHost, long network, boolean sameHostExpected) {

  /** Nothing measured yet. */
  public static final RailBytes NONE = new RailBytes(0, 0, false);

  /**
   * @param engine an engine
   * @param sameHostExpected whether the window about to run should take the same-host rail only
   * @return its rails' bytes since it started (a starting point to subtract)
   */
  static RailBytes of(TransferEngine engine, boolean sameHostExpected) {
    long same = 0;
    long network = 0;
    for (RailStatus r : engine.diagnostics().rails()) {
      if (r.sameHost()) {
        same += r.movedBytes();
      } else {
        network += r.movedBytes();
      }
    }
    return new RailBytes(same, network, sameHostExpected);
  }

  /**
   * @param engine the engine
   * @return true when it has a same-host rail (a segment it opened is in shared memory here)
   */
  static boolean hasSameHostRail(TransferEngine engine) {
    return engine.diagnostics().rails().stream().anyMatch(RailStatus::sameHost);
  }

  /**
   * @param start the engine's bytes before a window
   * @return this (taken after the window) less {@code start}: what the window moved
   */
  RailBytes since(RailBytes start) {
    return new RailBytes(sameHost - start.sameHost, network - start.network, sameHostExpected);
  }

  /**
   * @param other another window's bytes
   * @return both windows together (expected on the same-host rail when either was)
   */
  RailBytes plus(RailBytes other) {
    return new RailBytes(
        sameHost + other.sameHost,
        network + other.network,
        sameHostExpected || other.sameHostExpected);
  }

  /**
   * @return true when a window meant for the same-host rail moved bytes over the network
   */
  public boolean fellBack() {
    return sameHostExpected && network > 0;
  }

  /**
   * @return the JSON form: {@code same_host}, {@code network}, {@code same_host_expected}, {@code
   *     fell_back}
   */
  public JsonObject json() {
    return new JsonObject()
        .put("same_host", sameHost)
        .put("network", network)
        .put("same_host_expected", sameHostExpected)
        .put("fell_back", fellBack());
  }
}
