package io.vte.engine.impl.owner.endpoint;

/**
 * Lifecycle of an endpoint. Active: {@code NEW -> CONNECTING -> CONNECTED -> RETIRED}; passive:
 * {@code NEW -> CONNECTED -> RETIRED}; a handshake that fails ends in {@code FAILED} (from NEW or
 * CONNECTING), and an endpoint still being made or connecting can be retired (its port went down, a
 * newer connection replaced it). RETIRED and FAILED are final. {@link #canMoveTo} is the whole
 * table.
 */
public enum EndpointState {
  /** Created, its QPs being made (and, passive, connected) off the owner's thread. */
  NEW,
  /** Active handshake in flight. */
  CONNECTING,
  /** QPs in RTS: slices are posted. */
  CONNECTED,
  /** Taken out of service; its in-flight work requests are flushing. */
  RETIRED,
  /** The handshake failed; nothing was ever posted. */
  FAILED;

  /**
   * @return true when an endpoint in this state may move to {@code next}
   */
  public boolean canMoveTo(EndpointState next) {
    return switch (this) {
      case NEW -> next == CONNECTING || next == CONNECTED || next == FAILED || next == RETIRED;
      case CONNECTING -> next == CONNECTED || next == FAILED || next == RETIRED;
      case CONNECTED -> next == RETIRED;
      case RETIRED, FAILED -> false;
    };
  }
}
