package io.vte.verbs;

/** Queue-pair states, numbered as {@code enum ibv_qp_state}. */
public enum QpState {
  /** Just created, or reset (0). */
  RESET,
  /** Initialised: may post receives (1). */
  INIT,
  /** Ready to receive (2). */
  RTR,
  /** Ready to send (3). */
  RTS,
  /** Send queue drained (4). */
  SQD,
  /** Send queue error (5). */
  SQE,
  /** Error: every outstanding and later work request completes with WR_FLUSH_ERR (6). */
  ERR;

  private static final QpState[] BY_CODE = values();

  /**
   * @return the ibverbs numeric code
   */
  public int code() {
    return ordinal();
  }

  /**
   * @param code ibverbs numeric code
   * @return the state
   * @throws VerbsException for an unknown code
   */
  public static QpState of(int code) {
    if (code < 0 || code >= BY_CODE.length) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "unknown QP state code " + code);
    }
    return BY_CODE[code];
  }
}
