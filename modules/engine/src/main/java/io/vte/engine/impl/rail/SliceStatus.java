package io.vte.engine.impl.rail;

import io.vte.verbs.WcStatus;

/**
 * How a slice ended, as an int on the hot path: {@link #OK}, a positive {@link WcStatus} code for a
 * failed work completion, or a negative engine code below.
 */
public final class SliceStatus {

  /** Completed successfully. */
  public static final int OK = 0;

  /**
   * The handshake for its endpoint failed (peer unreachable, rejected, or deadline). Rail penalty.
   */
  public static final int HANDSHAKE_FAILED = -1;

  /**
   * Its endpoint was retired before the slice ran (flushed or never posted). Retry, no rail
   * penalty.
   */
  public static final int ENDPOINT_RETIRED = -2;

  /** Its rail's local or remote port is down. */
  public static final int RAIL_DOWN = -3;

  /** The engine is closing. */
  public static final int ENGINE_CLOSED = -4;

  /**
   * The parent request was canceled or timed out before the slice was posted; it was dropped
   * unposted.
   */
  public static final int ABANDONED = -5;

  /** Posting was refused by the provider (a negative PostStatus); the cause says which. */
  public static final int POST_FAILED = -6;

  /**
   * The peer refused the handshake because its device is down (DEVICE_DOWN) or it is closing
   * (SHUTTING_DOWN): nothing wrong with the slice, it moves to another rail, and every rail to that
   * peer device is held down.
   */
  public static final int PEER_DEVICE_DOWN = -7;

  /**
   * A posted WRITE that failed, whose peer could not confirm that it retired its end of the
   * connection: the WRITE may still land there, so it is not retried (a retry that completed first
   * could be overwritten by it); the cause says why.
   */
  public static final int FENCE_FAILED = -8;

  /**
   * Its peer is gone: the peer's handshake service refused a probe or a handshake after the peer
   * had been connected (its process died or closed). Not retried: every rail leads to that peer;
   * the request fails PEER_UNREACHABLE at once instead of waiting for its deadline.
   */
  public static final int PEER_GONE = -9;

  private SliceStatus() {}

  /**
   * @param status a slice status
   * @return true when the slice may be retried on another rail (or the same one, freshly connected)
   */
  public static boolean isRetryable(int status) {
    return status != OK
        && status != ENGINE_CLOSED
        && status != ABANDONED
        && status != FENCE_FAILED
        && status != PEER_GONE
        && status != WcStatus.REM_ACCESS_ERR.code()
        && status != WcStatus.LOC_PROT_ERR.code()
        && status != WcStatus.LOC_LEN_ERR.code()
        && status != WcStatus.REM_INV_REQ_ERR.code();
  }

  /**
   * @param status a slice status
   * @return true when the failure should count against the rail's health
   */
  public static boolean penalizesRail(int status) {
    return status == HANDSHAKE_FAILED
        || status == RAIL_DOWN
        || status == PEER_DEVICE_DOWN
        || status == WcStatus.RETRY_EXC_ERR.code()
        || status == WcStatus.RNR_RETRY_EXC_ERR.code()
        || status == WcStatus.FATAL_ERR.code()
        || status == WcStatus.GENERAL_ERR.code();
  }

  /**
   * @param status a penalizing slice status
   * @return true when it puts the blame on the peer device of the rail (unless the local port is
   *     down): the QP gave up waiting for it (RETRY_EXC), or the peer said it is down
   */
  public static boolean implicatesPeerDevice(int status) {
    return status == WcStatus.RETRY_EXC_ERR.code() || status == PEER_DEVICE_DOWN;
  }

  /**
   * @param status a slice status
   * @return a readable name
   */
  public static String name(int status) {
    switch (status) {
      case OK:
        return "OK";
      case HANDSHAKE_FAILED:
        return "HANDSHAKE_FAILED";
      case ENDPOINT_RETIRED:
        return "ENDPOINT_RETIRED";
      case RAIL_DOWN:
        return "RAIL_DOWN";
      case ENGINE_CLOSED:
        return "ENGINE_CLOSED";
      case ABANDONED:
        return "ABANDONED";
      case POST_FAILED:
        return "POST_FAILED";
      case PEER_DEVICE_DOWN:
        return "PEER_DEVICE_DOWN";
      case FENCE_FAILED:
        return "FENCE_FAILED";
      case PEER_GONE:
        return "PEER_GONE";
      default:
        return status > 0 ? WcStatus.of(status).name() : "UNKNOWN(" + status + ")";
    }
  }
}
