package io.vte.verbs;

/**
 * Attributes of the RTR -> RTS transition.
 *
 * @param sqPsn our initial send PSN (24 bits); the peer passes it as {@link QpPeer#psn()}
 * @param timeout local ACK timeout, ibverbs encoding: 4.096 us x 2^timeout (0..31; 0 = infinite)
 * @param retryCount transport retries before RETRY_EXC_ERR (0..7)
 * @param rnrRetry RNR retries before RNR_RETRY_EXC_ERR (0..7; 7 = infinite)
 */
public record RtsAttributes(int sqPsn, int timeout, int retryCount, int rnrRetry) {

  /** Validates ranges. */
  public RtsAttributes {
    if ((sqPsn & ~0xffffff) != 0) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "sqPsn must fit 24 bits: " + sqPsn);
    }
    if (timeout < 0 || timeout > 31) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "timeout must be 0..31, got " + timeout);
    }
    if (retryCount < 0 || retryCount > 7) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "retryCount must be 0..7, got " + retryCount);
    }
    if (rnrRetry < 0 || rnrRetry > 7) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "rnrRetry must be 0..7, got " + rnrRetry);
    }
  }

  /**
   * @return the ACK timeout in nanoseconds (0 means infinite)
   */
  public long timeoutNanos() {
    return timeout == 0 ? 0 : 4096L << timeout;
  }
}
