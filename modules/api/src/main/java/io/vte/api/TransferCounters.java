package io.vte.api;

/**
 * An engine's transfer counters since it started, obtained from {@link
 * EngineDiagnostics#counters()}: {@code engine.diagnostics().counters().bytes()}.
 *
 * @param bytes bytes moved by completed slices
 * @param slices completed slices
 * @param retries slices resubmitted after a failure (to another rail or the same one)
 * @param staleRefreshes peer descriptors fetched again because a request did not fit the cached one
 *     (its range was missing, or the peer refused its keys)
 * @param batches batches submitted
 */
public record TransferCounters(
    long bytes, long slices, long retries, long staleRefreshes, long batches) {}
