package io.vte.verbs;

/** Port state, numbered as {@code enum ibv_port_state}. */
public enum PortState {
  /** ibv NOP (0). */
  NOP,
  /** Link down (1). */
  DOWN,
  /** Initialising (2). */
  INIT,
  /** Armed (3). */
  ARMED,
  /** Active: traffic flows (4). */
  ACTIVE,
  /** Active, deferred (5). */
  ACTIVE_DEFER;

  private static final PortState[] BY_CODE = values();

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
  public static PortState of(int code) {
    if (code < 0 || code >= BY_CODE.length) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "unknown port state code " + code);
    }
    return BY_CODE[code];
  }
}
