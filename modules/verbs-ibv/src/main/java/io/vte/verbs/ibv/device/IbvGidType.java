package io.vte.verbs.ibv.device;

import io.vte.verbs.GidType;

/** The type of a GID table entry ({@code enum ibv_gid_type}), or UNKNOWN when it cannot be read. */
public enum IbvGidType {
  /** An InfiniBand GID (0). */
  IB,
  /** RoCE v1: Ethernet frames with a GRH, not routable over IP (1). */
  ROCE_V1,
  /** RoCE v2: UDP/IP, routable (2). */
  ROCE_V2,
  /** Not known (no {@code ibv_query_gid_ex} and no sysfs attribute). */
  UNKNOWN;

  /**
   * @param code an {@code ibv_gid_type} value, or -1
   * @return the type
   */
  public static IbvGidType of(long code) {
    return code >= 0 && code < UNKNOWN.ordinal() ? values()[(int) code] : UNKNOWN;
  }

  /**
   * @param text {@code auto}, {@code roce-v1}, {@code roce-v2} or {@code ib}, any case
   * @return the type ({@link #UNKNOWN} for auto), or null when the text names none
   */
  public static IbvGidType parse(String text) {
    switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
      case "auto":
        return UNKNOWN;
      case "roce-v1":
      case "rocev1":
        return ROCE_V1;
      case "roce-v2":
      case "rocev2":
        return ROCE_V2;
      case "ib":
        return IB;
      default:
        return null;
    }
  }

  /**
   * @return the engine-neutral type the handshake exchanges
   */
  public GidType neutral() {
    return switch (this) {
      case IB -> GidType.IB;
      case ROCE_V1 -> GidType.ROCE_V1;
      case ROCE_V2 -> GidType.ROCE_V2;
      case UNKNOWN -> GidType.UNSPECIFIED;
    };
  }
}
