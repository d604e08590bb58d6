/**
 * Transports to peers of another kind plugged in through {@link io.vte.engine.spi}: {@link
 * io.vte.engine.impl.peer.PeerTransports} opens their segment names and is the engine's {@link
 * io.vte.engine.impl.rail.Transport} to their segments, one {@link
 * io.vte.engine.impl.peer.PeerRoute} per segment.
 */
package io.vte.engine.impl.peer;
