package io.vte.verbs;

/** Async event types, numbered as {@code enum ibv_event_type}. */
public enum AsyncEventType {
  /** A CQ overflowed (0). */
  CQ_ERR,
  /** A QP hit a fatal error and is in ERR (1). */
  QP_FATAL,
  /** Invalid request on a QP (2). */
  QP_REQ_ERR,
  /** Access violation on a QP (3). */
  QP_ACCESS_ERR,
  /** Communication established (4). */
  COMM_EST,
  /** Send queue drained (5). */
  SQ_DRAINED,
  /** Path migrated (6). */
  PATH_MIG,
  /** Path migration failed (7). */
  PATH_MIG_ERR,
  /** The device is dead (8). */
  DEVICE_FATAL,
  /** A port became active (9). */
  PORT_ACTIVE,
  /** A port went down (10). */
  PORT_ERR,
  /** LID changed (11). */
  LID_CHANGE,
  /** P_Key table changed (12). */
  PKEY_CHANGE,
  /** Subnet manager changed (13). */
  SM_CHANGE,
  /** SRQ error (14). */
  SRQ_ERR,
  /** SRQ limit reached (15). */
  SRQ_LIMIT_REACHED,
  /** Last WQE reached (16). */
  QP_LAST_WQE_REACHED,
  /** Client re-register (17). */
  CLIENT_REREGISTER,
  /** GID table changed (18). */
  GID_CHANGE;

  private static final AsyncEventType[] BY_CODE = values();

  /**
   * @return the ibverbs numeric code
   */
  public int code() {
    return ordinal();
  }

  /**
   * @param code ibverbs numeric code
   * @return the type
   * @throws VerbsException for an unknown code
   */
  public static AsyncEventType of(int code) {
    if (code < 0 || code >= BY_CODE.length) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "unknown async event type " + code);
    }
    return BY_CODE[code];
  }
}
