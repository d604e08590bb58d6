package io.vte.it;

import io.vertx.core.json.JsonObject;
import io.vte.api.OwnerStats;
import io.vte.api.TransferEngine;

/**
 * A snapshot of the owner-layer figures of one engine, summed over all its devices and owners.
 *
 * @param endpointsAlive connected or connecting endpoints
 * @param handshakes successful active plus passive handshakes
 * @param handshakesFailed failed active handshakes
 * @param staleRepliesDropped Connect replies dropped because the endpoint had moved on
 * @param pollGapP999Nanos 99.9th percentile of the CQ poll gap while work was in flight
 * @param pollGapMaxNanos longest CQ poll gap while work was in flight
 * @param slicesFailed slices that completed in error
 * @param endpointsRetired endpoints retired after a fault or a close
 * @param endpointsEvicted endpoints evicted from a full endpoint store
 */
public record EngineStats(
    long endpointsAlive,
    long handshakes,
    long handshakesFailed,
    long staleRepliesDropped,
    long pollGapP999Nanos,
    long pollGapMaxNanos,
    long slicesFailed,
    long endpointsRetired,
    long endpointsEvicted) {

  /**
   * @param engine an open engine
   * @return its figures now
   */
  public static EngineStats of(TransferEngine engine) {
    OwnerStats o = engine.diagnostics().owners();
    return new EngineStats(
        o.endpointsAlive(),
        o.handshakesActive() + o.handshakesPassive(),
        o.handshakesFailed(),
        o.staleRepliesDropped(),
        o.pollGapP999Nanos(),
        o.pollGapMaxNanos(),
        o.slicesFailed(),
        o.endpointsRetired(),
        o.endpointsEvicted());
  }

  /**
   * @return the endpoint, handshake and slice counters in one line, for reports
   */
  public String counters() {
    return String.format(
        "endpoints %d alive/%d retired/%d evicted, handshakes %d ok/%d failed, %d slices failed",
        endpointsAlive,
        endpointsRetired,
        endpointsEvicted,
        handshakes,
        handshakesFailed,
        slicesFailed);
  }

  /**
   * @return these figures as the JSON a node process prints
   */
  public JsonObject toJson() {
    return new JsonObject()
        .put("endpointsAlive", endpointsAlive)
        .put("handshakes", handshakes)
        .put("handshakesFailed", handshakesFailed)
        .put("staleRepliesDropped", staleRepliesDropped)
        .put("pollGapP999Nanos", pollGapP999Nanos)
        .put("pollGapMaxNanos", pollGapMaxNanos)
        .put("slicesFailed", slicesFailed)
        .put("endpointsRetired", endpointsRetired)
        .put("endpointsEvicted", endpointsEvicted);
  }

  /**
   * @param json what {@link #toJson()} printed
   * @return the figures
   */
  public static EngineStats fromJson(JsonObject json) {
    return new EngineStats(
        json.getLong("endpointsAlive"),
        json.getLong("handshakes"),
        json.getLong("handshakesFailed"),
        json.getLong("staleRepliesDropped"),
        json.getLong("pollGapP999Nanos"),
        json.getLong("pollGapMaxNanos"),
        json.getLong("slicesFailed"),
        json.getLong("endpointsRetired"),
        json.getLong("endpointsEvicted"));
  }
}
