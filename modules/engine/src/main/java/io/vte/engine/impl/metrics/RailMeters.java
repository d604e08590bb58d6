package io.vte.engine.impl.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Vertx;
import io.vte.api.RailStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * {@code vte.rail.up}: one gauge per rail (local device, peer, peer device), 1 while slices may be
 * routed to it ({@link RailStatus#usable()}), else 0. Rails appear as peers are first used, so the
 * set of gauges is refreshed from the rail snapshot every {@link #REFRESH_MS} ms (a value is at
 * most that old); {@link #close()} cancels the refresh and removes every rail's gauge.
 */
public final class RailMeters {

  /** How often the set of rails and their states are read again, in milliseconds. */
  static final long REFRESH_MS = 1_000;

  private final Vertx vertx;
  private final MultiGauge gauge;
  private final String engine;
  private final Supplier<List<RailStatus>> rails;
  private final long timer;

  private RailMeters(
      Vertx vertx, MeterRegistry registry, String engine, Supplier<List<RailStatus>> rails) {
    this.vertx = vertx;
    this.engine = engine;
    this.rails = rails;
    this.gauge =
        MultiGauge.builder("vte.rail.up")
            .description(
                "1 while slices may be routed to the rail (port up, nothing held down), else 0")
            .register(registry);
    refresh();
    this.timer = vertx.setPeriodic(REFRESH_MS, id -> refresh());
  }

  /**
   * Registers the rails' gauges and starts their refresh.
   *
   * @param vertx the Vert.x instance whose timer refreshes them
   * @param registry where to register
   * @param engine the engine's label (tag {@code engine})
   * @param rails the engine's rails now (thread-safe, as the diagnostics API is)
   * @return the meters, to close when the engine closes
   */
  public static RailMeters start(
      Vertx vertx, MeterRegistry registry, String engine, Supplier<List<RailStatus>> rails) {
    return new RailMeters(vertx, registry, engine, rails);
  }

  /** Reads the rails again: new rails get a gauge, gone ones lose theirs. */
  void refresh() {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    for (RailStatus rail : rails.get()) {
      rows.add(
          MultiGauge.Row.of(
              Tags.of(
                  "engine", engine,
                  "device", rail.localDevice(),
                  "peer", rail.peerServer(),
                  "peer_device", rail.peerDevice()),
              rail.usable() ? 1 : 0));
    }
    gauge.register(rows, true);
  }

  /** Cancels the refresh and removes every rail's gauge. */
  public void close() {
    vertx.cancelTimer(timer);
    gauge.register(List.of(), true);
  }
}
