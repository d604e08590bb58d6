package io.vte.verbs;

/**
 * A completion queue ({@code ibv_cq}) with a fixed capacity. Polling is batched into a reusable
 * {@link WorkCompletionBatch} and allocates nothing.
 *
 * <p>Waking up: {@link #requestNotify()} arms the CQ once (as {@code ibv_req_notify_cq}); the next
 * completion added after arming calls the {@link CompletionNotificationHandler} once, on a provider
 * thread. A consumer that goes idle arms, then polls once more to close the race, then waits.
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
