package io.vte.mooncake;

/** The type byte of a Mooncake P2P handshake frame. */
enum HandshakeType {
  /** RDMA endpoint setup: refused by a VTE target, which serves TCP only. */
  CONNECTION(0),
  /** Asks for the segment descriptor. */
  METADATA(1),
  /** Carries a notification ({@code name}, {@code notify_msg}). */
  NOTIFY(2),
  /** Liveness probe. */
  PROBE(3);

  final int code;

  HandshakeType(int code) {
    this.code = code;
  }

  /**
   * @return the type of {@code code}, or null when Mooncake defines none
   */
  static HandshakeType of(int code) {
    for (HandshakeType t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    return null;
  }
}
