package io.vte.api;

/**
 * State of a task (request) or of a whole batch in the explicit batch-id API, returned by {@link
 * TransferEngine#batchStatus} and {@link TaskStatus#state()}: {@code engine.batchStatus(id) ==
 * TaskState.COMPLETED}.
 */
public enum TaskState {
  /** Allocated slot, nothing submitted. */
  WAITING,
  /** Submitted and still moving. */
  PENDING,
  /** Completed. */
  COMPLETED,
  /** Failed. */
  FAILED,
  /** Canceled. */
  CANCELED,
  /** Timed out. */
  TIMED_OUT;

  /**
   * @return true for a final state
   */
  public boolean isFinal() {
    return this != WAITING && this != PENDING;
  }
}
