package io.vte.verbs;

/**
 * A completion queue ({@code ibv_cq}) with a fixed capacity. Polling is batched into a reusable
 * {@link WorkCompletionBatch} and allocates nothing.
 *
 * <p>Waking up: {@link #requestNotify()} arms the CQ once (as {@code ibv_req_notify_cq}); the next
 * completion added after arming calls the {@link CompletionNotificationHandler} once, on a provider
 * thread. A consumer that goes idle arms, then polls once more to close the race, then waits.
 *
 * <p>Progress: a provider whose "hardware" is software (soft verbs: TCP sockets and a NIC thread
 * per device) may move bytes in the consumer's thread while it polls instead of waking a thread of
 * its own, as a polled RDMA completion costs no interrupt. It does so only in {@link #progress()},
 * never in {@link #poll}: a busy-polling consumer calls {@code progress()} and then {@code poll()}
 * each round; one that does not still gets every completion, later (the provider's own threads move
 * the bytes). Hardware providers need no progress call; theirs does nothing.
 */
public interface CompletionQueue extends AutoCloseable {

  /**
   * @return the number of completions the queue holds
   */
  int capacity();

  /**
   * Moves up to {@code out.capacity()} completions into {@code out}, oldest first.
   *
   * @param out reusable destination; its count is set to the number polled
   * @return the number of completions polled (0 when empty), or a negative {@link PostStatus} code
   *     ({@link PostStatus#CQ_ERROR} after an overflow, {@link PostStatus#CLOSED} after close)
   */
  int poll(WorkCompletionBatch out);

  /**
   * Moves the bytes of the work that completes into this queue in the caller's thread, when the
   * provider moves bytes in software (soft verbs: reads the responses of the QPs that send into
   * this queue while it is not armed). Does nothing by default and for hardware providers. Call it
   * from the queue's one consumer, before {@link #poll}; it never blocks.
   *
   * @return how many units of work it served (soft verbs: connections read), 0 when none
   */
  default int progress() {
    return 0;
  }

  /**
   * Sets the notification handler. Replaces any previous handler.
   *
   * @param handler called on a provider thread; must not block
   */
  void setNotificationHandler(CompletionNotificationHandler handler);

  /**
   * Arms the CQ for one notification.
   *
   * @return {@link PostStatus#OK}, or a negative {@link PostStatus} code when closed or in error
   */
  int requestNotify();

  /** Destroys the CQ. Idempotent. */
  @Override
  void close();
}
