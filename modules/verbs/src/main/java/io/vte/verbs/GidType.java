package io.vte.verbs;

/**
 * The type of the GID a port uses, which both ends of a RoCE connection must share: a RoCE v1 GID
 * (Ethernet frames with a GRH) cannot talk to a RoCE v2 one (UDP/IP). Codes as exchanged in the
 * handshake.
 */
public enum GidType {
  /** Not known, or not sent by an older peer (0). */
  UNSPECIFIED,
  /** An InfiniBand GID (1). */
  IB,
  /** RoCE v1 (2). */
  ROCE_V1,
  /** RoCE v2 (3). */
  ROCE_V2;

  private static final GidType[] CODES = values();

  /**
   * @param code a code from the handshake
   * @return its type, {@link #UNSPECIFIED} for a code this version does not know
   */
  public static GidType of(int code) {
    return code > 0 && code < CODES.length ? CODES[code] : UNSPECIFIED;
  }
}
