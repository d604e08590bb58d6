package io.vte.api;

/** How one request of a batch ended. */
public enum RequestStatus {
  /** Every byte was moved. */
  COMPLETED,
  /** It failed; {@link RequestResult#cause()} says why. */
  FAILED,
  /** The batch was canceled before the request completed. */
  CANCELED,
  /** The batch deadline passed before the request completed. */
  TIMED_OUT
}
