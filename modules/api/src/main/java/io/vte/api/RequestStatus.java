package io.vte.api;

/**
 * How one request of a batch ended, read from {@link RequestResult#status()}: {@code
 * result.requests().get(0).status() == RequestStatus.COMPLETED}.
 */
public enum RequestStatus {
  /** Every byte was moved. */
  COMPLETED,
  /** It failed; {@link RequestResult#cause()} says why. */
  FAILED,
  /**
   * The batch was canceled before the request completed. Slices already posted still run to their
   * end, as an RDMA WRITE or READ posted before a cancel does: the destination range may change
   * until then, so a caller that reuses it first waits until no rail has a backlog ({@link
   * RailStatus#backlogBytes()} of {@link EngineDiagnostics#rails()}).
   */
  CANCELED,
  /**
   * The batch deadline passed before the request completed; posted slices run on as for CANCELED.
   */
  TIMED_OUT
}
