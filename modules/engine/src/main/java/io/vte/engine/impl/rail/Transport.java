package io.vte.engine.impl.rail;

import io.vte.engine.impl.segment.PeerSegment;

/**
 * A way slices travel to a peer: verbs rails ({@link RailSelector}: owners posting on endpoints) or
 * the same-host rail (copier threads on the peer's mapped file). The engine asks its transports in
 * order of preference for {@link Routes} to each request's remote buffer; the first with a usable
 * route carries a slice, the next ones take over when it has none. Another transport (e.g. a TCP
 * one) plugs in by implementing this, {@link Routes}, {@link Route} and {@link Carrier}.
 */
public interface Transport {

  /**
   * @param segment a peer segment
   * @param bufferIndex one of its buffers
   * @return this transport's routes to that buffer, or null when it does not reach it
   */
  Routes routesTo(PeerSegment segment, int bufferIndex);
}
