package io.vte.engine.impl.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vte.engine.impl.owner.LocalContext;
import io.vte.engine.impl.owner.OwnerMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * Exposes the owner layer's counters as Micrometer meters {@code vte.owner.*}, tagged with the
 * engine, the device and the owner index: handshakes and their failures, stale replies dropped,
 * endpoints alive and retired, QP-fatal events, slices posted and failed, and the largest CQ poll
 * gap.
 */
public final class OwnerMeters {

  private record Counter(
      String name, String description, ToDoubleFunction<OwnerMetrics> value, String baseUnit) {
    Counter(String name, String description, ToDoubleFunction<OwnerMetrics> value) {
      this(name, description, value, null);
    }
  }

  private static final List<Counter> COUNTERS =
      List.of(
          new Counter(
              "vte.owner.slices.accepted",
              "slices the owner took from its queue",
              OwnerMetrics::slicesAccepted),
          new Counter(
              "vte.owner.slices.posted",
              "slices the owner handed to the verbs provider",
              OwnerMetrics::slicesPosted),
          new Counter(
              "vte.owner.slices.failed",
              "slices that completed with a status other than OK",
              OwnerMetrics::slicesFailed),
          new Counter(
              "vte.owner.handshakes.active",
              "active handshakes started (Connect sent to a peer)",
              OwnerMetrics::handshakesActive),
          new Counter(
              "vte.owner.handshakes.passive",
              "passive handshakes accepted (a peer's Connect answered)",
              OwnerMetrics::handshakesPassive),
          new Counter(
              "vte.owner.handshakes.failed",
              "active handshakes that failed (reject, error or deadline)",
              OwnerMetrics::handshakesFailed),
          new Counter(
              "vte.owner.handshakes.reasked",
              "active handshakes sent again after a SIMULTANEOUS_OPEN answer whose peer request never came",
              OwnerMetrics::handshakesReasked),
          new Counter(
              "vte.owner.endpoints.idle.retired",
              "endpoints retired because no transfer used them for idleEndpointMs",
              OwnerMetrics::endpointsIdleRetired),
          new Counter(
              "vte.owner.handshakes.attempts",
              "connect requests sent by active handshakes (first attempts, retries, re-asks)",
              OwnerMetrics::handshakeAttempts),
          new Counter(
              "vte.owner.handshakes.retries",
              "connect requests sent again after a refused attempt and a backoff wait",
              OwnerMetrics::handshakeRetries),
          new Counter(
              "vte.owner.handshakes.backoff",
              "total backoff wait scheduled before handshake retries",
              m -> m.handshakeBackoffNanos() / 1e9,
              "seconds"),
          new Counter(
              "vte.owner.stale.replies.dropped",
              "handshake replies dropped because their endpoint was replaced or retired meanwhile",
              OwnerMetrics::staleRepliesDropped),
          new Counter(
              "vte.owner.endpoints.retired", "endpoints retired", OwnerMetrics::endpointsRetired),
          new Counter(
              "vte.owner.qp.fatal", "QP fatal events handled", OwnerMetrics::qpFatalEvents));

  private OwnerMeters() {}

  /**
   * @param registry where to register
   * @param serverName the engine's server name (tag {@code engine})
   * @param contexts the local contexts
   * @return the meters, to remove when the engine closes
   */
  public static List<Meter> bind(
      MeterRegistry registry, String serverName, List<LocalContext> contexts) {
    List<Meter> meters = new ArrayList<>();
    for (LocalContext ctx : contexts) {
      for (int i = 0; i < ctx.ownerCount(); i++) {
        OwnerMetrics m = ctx.ownerMetrics(i);
        Tags tags =
            Tags.of("engine", serverName, "device", ctx.deviceName(), "owner", Integer.toString(i));
        for (Counter c : COUNTERS) {
          meters.add(
              FunctionCounter.builder(c.name(), m, c.value())
                  .tags(tags)
                  .baseUnit(c.baseUnit())
                  .description(c.description())
                  .register(registry));
        }
        meters.add(
            Gauge.builder("vte.owner.endpoints.alive", m, OwnerMetrics::endpointsAlive)
                .tags(tags)
                .description("endpoints currently in the owner's store")
                .register(registry));
        meters.add(
            Gauge.builder("vte.owner.cq.poll.gap.max", m, o -> o.maxPollGapNanos() / 1e9)
                .tags(tags)
                .baseUnit("seconds")
                .description("longest time between two CQ polls while work was in flight")
                .register(registry));
      }
    }
    return meters;
  }
}
