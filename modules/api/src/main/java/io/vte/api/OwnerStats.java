package io.vte.api;

/**
 * The owners' figures of one engine (endpoints, handshakes, failed slices, CQ poll gaps), summed
 * over every device and owner since the engine started. Obtained from {@link
 * EngineDiagnostics#owners()}: {@code engine.diagnostics().owners().handshakesFailed()}.
 *
 * @param endpointsAlive endpoints connected or connecting now
 * @param endpointsRetired endpoints retired after a fault or a close
 * @param endpointsEvicted idle endpoints evicted from a full endpoint store
 * @param handshakesActive active handshakes started
 * @param handshakesPassive passive handshakes accepted
 * @param handshakesFailed active handshakes that failed
 * @param handshakeAttempts connect requests the active handshakes sent (first attempts, retries and
 *     re-asks after a simultaneous open)
 * @param handshakeRetries connect requests sent again after a refused attempt and a backoff wait
 * @param handshakeBackoffNanos total backoff wait scheduled before those retries
 * @param staleRepliesDropped handshake replies dropped because their endpoint had moved on
 * @param slicesFailed slices that completed in error
 * @param pollGapP999Nanos 99.9th percentile of the time between two CQ polls while work was in
 *     flight, 0 when none was recorded
 * @param pollGapMaxNanos the longest such time, 0 when none was recorded
 */
public record OwnerStats(
    long endpointsAlive,
    long endpointsRetired,
    long endpointsEvicted,
    long handshakesActive,
    long handshakesPassive,
    long handshakesFailed,
    long handshakeAttempts,
    long handshakeRetries,
    long handshakeBackoffNanos,
    long staleRepliesDropped,
    long slicesFailed,
    long pollGapP999Nanos,
    long pollGapMaxNanos) {}
