package io.vte.verbs.soft.impl.requester;

import io.vte.verbs.RtsAttributes;

/**
 * What a requester may still spend before it gives up, as an RC QP counts it: ACK-timeout retries
 * and RNR retries (both reset whenever the peer answers), and the back-off between reconnects
 * (doubling up to the QP timeout, reset by progress). NIC thread only.
 */
public final class RetryBudget {

  /** How long a requester waits after an RNR NAK before it resends. */
  public static final long RNR_DELAY_NANOS = 1_000_000;

  private static final long MIN_RECONNECT_NANOS = 1_000_000;
  private static final long MAX_RECONNECT_NANOS = 64_000_000;

  /** The {@code rnr_retry} value that means "retry for ever". */
  private static final int RNR_INFINITE = 7;

  private int retriesLeft;
  private int rnrLeft;
  private long reconnectDelay = MIN_RECONNECT_NANOS;

  /** The peer answered: every budget starts over from the QP's attributes. */
  public void reset(RtsAttributes rts) {
    retriesLeft = Math.max(1, rts.retryCount()) - 1;
    rnrLeft = rts.rnrRetry();
    reconnectDelay = MIN_RECONNECT_NANOS;
  }

  /**
   * @return true when an ACK timeout may resend once more (and counts it)
   */
  public boolean spendRetry() {
    if (retriesLeft > 0) {
      retriesLeft--;
      return true;
    }
    return false;
  }

  /**
   * @return true when an RNR NAK may resend once more (and counts it, unless infinite)
   */
  public boolean spendRnr(RtsAttributes rts) {
    int rnrRetry = rts.rnrRetry();
    if (rnrRetry == RNR_INFINITE) {
      return true;
    }
    if (rnrLeft > 0) {
      rnrLeft--;
      return true;
    }
    return false;
  }

  /**
   * A connection attempt failed: the wait before the next one, which doubles the one after up to
   * {@link #MAX_RECONNECT_NANOS}, or the QP timeout when that is shorter (and set). A refusal is
   * not a lost frame: it spends no retry.
   */
  public long nextReconnectDelay(RtsAttributes rts) {
    long delay = reconnectDelay;
    long timeout = rts.timeoutNanos();
    long cap =
        timeout > 0
            ? Math.max(MIN_RECONNECT_NANOS, Math.min(MAX_RECONNECT_NANOS, timeout))
            : MAX_RECONNECT_NANOS;
    reconnectDelay = Math.min(reconnectDelay * 2, cap);
    return delay;
  }
}
