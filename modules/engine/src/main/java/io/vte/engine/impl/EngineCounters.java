package io.vte.engine.impl;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of the engine layer (bytes, slices, retries, stale segment refreshes, batches).
 * Thread-safe.
 */
public final class EngineCounters {

  private final LongAdder bytes = new LongAdder();
  private final LongAdder slices = new LongAdder();
  private final LongAdder retries = new LongAdder();
  private final LongAdder staleRefreshes = new LongAdder();
  private final LongAdder batches = new LongAdder();

  public void sliceDone(int length) {
    bytes.add(length);
    slices.increment();
  }

  public void retry() {
    retries.increment();
  }

  public void staleRefresh() {
    staleRefreshes.increment();
  }

  public void batchSubmitted() {
    batches.increment();
  }

  /**
   * @return bytes moved by completed slices
   */
  public long bytes() {
    return bytes.sum();
  }

  /**
   * @return completed slices
   */
  public long slices() {
    return slices.sum();
  }

  /**
   * @return slices resubmitted after a failure
   */
  public long retries() {
    return retries.sum();
  }

  /**
   * @return segment descriptors refreshed because a request did not fit the cached one: its range
   *     was missing, or the peer refused its keys
   */
  public long staleRefreshes() {
    return staleRefreshes.sum();
  }

  /**
   * @return batches submitted
   */
  public long batches() {
    return batches.sum();
  }

  /**
   * Exposes the counters as Micrometer meters named {@code vte.engine.*}.
   *
   * @param registry the registry (e.g. the Vert.x Micrometer backend registry)
   * @param serverName tag value identifying this engine
   * @return the meters, to remove from the registry when the engine closes
   */
  public List<Meter> bindTo(MeterRegistry registry, String serverName) {
    return List.of(
        bind(
            registry,
            "vte.engine.bytes",
            "bytes",
            "bytes moved by completed requests",
            serverName,
            bytes),
        bind(registry, "vte.engine.slices", null, "slices completed", serverName, slices),
        bind(
            registry,
            "vte.engine.retries",
            null,
            "slices retried on another rail after a failure",
            serverName,
            retries),
        bind(
            registry,
            "vte.engine.segment.stale.refreshes",
            null,
            "peer segment descriptors fetched again because a cached one was stale",
            serverName,
            staleRefreshes),
        bind(registry, "vte.engine.batches", null, "batches submitted", serverName, batches));
  }

  private static Meter bind(
      MeterRegistry registry,
      String name,
      String baseUnit,
      String description,
      String serverName,
      LongAdder adder) {
    return FunctionCounter.builder(name, adder, LongAdder::sum)
        .tag("engine", serverName)
        .baseUnit(baseUnit)
        .description(description)
        .register(registry);
  }
}
