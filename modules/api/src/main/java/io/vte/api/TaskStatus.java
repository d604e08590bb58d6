package io.vte.api;

/**
 * The status of one task in the explicit batch-id API, returned by {@link
 * TransferEngine#status(long, int)}: {@code engine.status(batchId, 0).state()}.
 *
 * @param state its state
 * @param bytes bytes moved so far (final once the state is final)
 * @param cause the typed cause of a FAILED, CANCELED or TIMED_OUT task, else null
 */
public record TaskStatus(TaskState state, long bytes, VteException cause) {}
