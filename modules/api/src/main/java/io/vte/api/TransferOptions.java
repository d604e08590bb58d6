package io.vte.api;

import java.time.Duration;

/**
 * Per-batch options of {@link TransferEngine#submit(java.util.List, TransferOptions)}: {@code
 * engine.submit(requests, new TransferOptions().setDeadline(Duration.ofSeconds(5)))}.
 */
public final class TransferOptions {

  /** Default deadline of a batch. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  private Duration deadline = DEFAULT_DEADLINE;

  /**
   * @return the deadline: requests unfinished this long after submit report TIMED_OUT
   */
  public Duration getDeadline() {
    return deadline;
  }

  /**
   * @param deadline positive duration
   * @return this
   * @throws VteException INVALID_ARGUMENT for a null, zero or negative deadline
   */
  public TransferOptions setDeadline(Duration deadline) {
    if (deadline == null || deadline.isZero() || deadline.isNegative()) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "deadline must be positive, got " + deadline);
    }
    this.deadline = deadline;
    return this;
  }
}
