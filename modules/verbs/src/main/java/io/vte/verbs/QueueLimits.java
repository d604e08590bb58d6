package io.vte.verbs;

/**
 * The largest queues and messages a device handles, as {@code ibv_query_device} and {@code
 * ibv_query_port} report them: a consumer sizes its CQs, QPs and work requests within them, or
 * refuses a configuration naming the limit.
 *
 * @param maxQpWr the deepest send or receive queue of a QP ({@code max_qp_wr})
 * @param maxCqe the most completions a CQ holds ({@code max_cqe})
 * @param maxMessageSize the most bytes one work request may carry ({@code max_msg_sz} of its ports;
 *     rxe: 8 MiB, a ConnectX: 1 GiB)
 * @param readDepth RDMA READs a QP of this device answers at once ({@code max_dest_rd_atomic} it
 *     sets), which its peers must not exceed; 0 when not limited
 */
public record QueueLimits(int maxQpWr, int maxCqe, long maxMessageSize, int readDepth) {

  /** No limit below {@code int}'s: devices that allocate queues on demand (soft verbs). */
  public static final QueueLimits UNBOUNDED =
      new QueueLimits(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE, 0);

  /**
   * Limits of queues only: messages of any size, READs without a depth limit.
   *
   * @param maxQpWr as {@link #maxQpWr()}
   * @param maxCqe as {@link #maxCqe()}
   */
  public QueueLimits(int maxQpWr, int maxCqe) {
    this(maxQpWr, maxCqe, Long.MAX_VALUE, 0);
  }
}
