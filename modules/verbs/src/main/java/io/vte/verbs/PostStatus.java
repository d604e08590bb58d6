package io.vte.verbs;

/**
 * Hot-path return codes of post and poll calls: zero or positive is success, negative values are
 * {@code -errno} so they match what libibverbs returns.
 */
public final class PostStatus {

  /** Success. */
  public static final int OK = 0;

  /**
   * The QP or CQ is in a state that does not allow the call, or a WR field is invalid (-EINVAL).
   */
  public static final int INVALID_STATE = -22;

  /** The work queue is full (-ENOMEM). */
  public static final int QUEUE_FULL = -12;

  /** The object was closed (-EBADF). */
  public static final int CLOSED = -9;

  /** The CQ overflowed and is in error (-EIO). */
  public static final int CQ_ERROR = -5;

  private PostStatus() {}

  /**
   * @param code a return code
   * @return a readable name
   */
  public static String name(int code) {
    switch (code) {
      case OK:
        return "OK";
      case INVALID_STATE:
        return "INVALID_STATE";
      case QUEUE_FULL:
        return "QUEUE_FULL";
      case CLOSED:
        return "CLOSED";
      case CQ_ERROR:
        return "CQ_ERROR";
      default:
        return code > 0 ? "OK(" + code + ")" : "ERRNO(" + (-code) + ")";
    }
  }
}
