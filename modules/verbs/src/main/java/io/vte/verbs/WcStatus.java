package io.vte.verbs;

/** Work-completion status, numbered as {@code enum ibv_wc_status}. */
public enum WcStatus {
  /** Success (0). */
  SUCCESS,
  /** Local length error: the local buffer is smaller than the data (1). */
  LOC_LEN_ERR,
  /** Local QP operation error (2). */
  LOC_QP_OP_ERR,
  /** Local EE context operation error (3). */
  LOC_EEC_OP_ERR,
  /** Local protection error: bad lkey or local range (4). */
  LOC_PROT_ERR,
  /** Flushed because the QP is in ERR (5). */
  WR_FLUSH_ERR,
  /** Memory-window bind error (6). */
  MW_BIND_ERR,
  /** Bad response (7). */
  BAD_RESP_ERR,
  /** Local access error (8). */
  LOC_ACCESS_ERR,
  /**
   * Remote invalid request, e.g. an unsupported opcode or a length the responder cannot take (9).
   */
  REM_INV_REQ_ERR,
  /** Remote access error: bad rkey, range outside the region or permission not granted (10). */
  REM_ACCESS_ERR,
  /** Remote operation error (11). */
  REM_OP_ERR,
  /** Transport retries exceeded: the peer did not answer within timeout x retryCount (12). */
  RETRY_EXC_ERR,
  /** Receiver-not-ready retries exceeded: no RECV was posted on the peer (13). */
  RNR_RETRY_EXC_ERR,
  /** Local RDD violation (14). */
  LOC_RDD_VIOL_ERR,
  /** Remote invalid RD request (15). */
  REM_INV_RD_REQ_ERR,
  /** Remote aborted (16). */
  REM_ABORT_ERR,
  /** Invalid EE context number (17). */
  INV_EECN_ERR,
  /** Invalid EE context state (18). */
  INV_EEC_STATE_ERR,
  /** Fatal error (19). */
  FATAL_ERR,
  /** Response timeout (20). */
  RESP_TIMEOUT_ERR,
  /** General error (21). */
  GENERAL_ERR,
  /** Tag-matching error (22). */
  TM_ERR,
  /** Tag-matching rendezvous incomplete (23). */
  TM_RNDV_INCOMPLETE_ERR,
  /**
   * A VTE extension (24, no ibverbs code): a work request flagged {@link WrFlags#INTEGRITY} moved
   * bytes whose CRC32C over the destination differs from the source's. Not fatal: the QP stays in
   * RTS and the work requests after it go on.
   */
  INTEGRITY_ERR;

  private static final WcStatus[] BY_CODE = values();

  /**
   * @return the ibverbs numeric code
   */
  public int code() {
    return ordinal();
  }

  /**
   * @param code ibverbs numeric code
   * @return the status; {@link #GENERAL_ERR} for a code this enum does not know
   */
  public static WcStatus of(int code) {
    return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : GENERAL_ERR;
  }
}
