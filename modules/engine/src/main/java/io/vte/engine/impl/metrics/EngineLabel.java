package io.vte.engine.impl.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The {@code engine} label of an engine's meters: the same when the engine restarts, different from
 * every other engine's on one registry.
 *
 * <p>Its base is the configured segment name, else the host with the configured port ({@code
 * host:0} when the handshake port is ephemeral: the bound port changes on every start, the host
 * does not). Engines of one registry with the same base take {@code base}, {@code base#2}, {@code
 * base#3}..., the lowest one no open engine holds, so an engine closed and started again gets its
 * label back. An engine holds its label through its {@value #INFO} gauge, which also maps the label
 * to the engine's server and segment names now.
 */
public final class EngineLabel {

  /** The meter holding a label: 1, tagged {@code engine}, {@code server} and {@code segment}. */
  public static final String INFO = "vte.engine.info";

  private EngineLabel() {}

  /**
   * @param configuredSegmentName the segment name the options set, or null
   * @param serverName the handshake server name, {@code host:boundPort}
   * @param configuredPort the handshake port the options set (0: ephemeral)
   * @return the configured segment name, else {@code host:configuredPort}
   */
  public static String base(String configuredSegmentName, String serverName, int configuredPort) {
    if (configuredSegmentName != null) {
      return configuredSegmentName;
    }
    return serverName.substring(0, serverName.lastIndexOf(':') + 1) + configuredPort;
  }

  /**
   * Takes the lowest free label of {@code base} on the registry and registers its info gauge, so
   * the label stays taken until the gauge is removed with the engine's other meters.
   *
   * @param registry where the engine's meters go
   * @param base the label's base ({@link #base})
   * @param serverName the engine's server name now (tag {@code server})
   * @param segmentName the engine's segment name now (tag {@code segment})
   * @return the info gauge; its {@code engine} tag is the label
   */
  public static Gauge claim(
      MeterRegistry registry, String base, String serverName, String segmentName) {
    synchronized (EngineLabel.class) {
      String label = base;
      for (int n = 2; registry.find(INFO).tag("engine", label).gauge() != null; n++) {
        label = base + "#" + n;
      }
      return Gauge.builder(INFO, () -> 1)
          .tag("engine", label)
          .tag("server", serverName)
          .tag("segment", segmentName)
          .description("1 for each open engine: its engine label's server and segment names now")
          .strongReference(true)
          .register(registry);
    }
  }
}
