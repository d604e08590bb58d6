package io.vte.api;

/**
 * The outcome of one request, obtained from {@link BatchResult#requests()} in submission order:
 * {@code result.requests().get(i).status() == RequestStatus.COMPLETED}.
 *
 * @param status how it ended
 * @param bytes bytes moved by slices that completed successfully
 * @param cause the typed cause for FAILED, CANCELED and TIMED_OUT; null for COMPLETED
 */
public record RequestResult(RequestStatus status, long bytes, VteException cause) {}
