package io.vte.verbs;

/**
 * The largest queues a device creates, as {@code ibv_query_device} reports them: a consumer sizes
 * its CQs and QPs within them, or refuses a configuration naming the limit.
 *
 * @param maxQpWr the deepest send or receive queue of a QP ({@code max_qp_wr})
 * @param maxCqe the most completions a CQ holds ({@code max_cqe})
 */
public record QueueLimits(int maxQpWr, int maxCqe) {

  /** No limit below {@code int}'s: devices that allocate queues on demand (soft verbs). */
  public static final QueueLimits UNBOUNDED = new QueueLimits(Integer.MAX_VALUE, Integer.MAX_VALUE);
}
