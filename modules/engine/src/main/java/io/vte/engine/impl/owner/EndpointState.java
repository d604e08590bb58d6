package io.vte.engine.impl.owner;

/** Lifecycle of an endpoint: {@code NEW -> CONNECTING -> CONNECTED -> (RETIRED | FAILED) -> deleted}. */
enum EndpointState {
  /** Created, QPs in INIT, no handshake yet. */
  NEW,
  /** Active handshake in flight. */
  CONNECTING,
  /** QPs in RTS: slices are posted. */
  CONNECTED,
  /** Taken out of service; its in-flight work requests are flushing. */
  RETIRED,
  /** The handshake failed; nothing was ever posted. */
  FAILED
}
