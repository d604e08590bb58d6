package io.vte.engine.spi;

import io.vertx.core.Vertx;

/**
 * A transport to peers of another kind (e.g. Mooncake nodes), found at run time with {@link
 * java.util.ServiceLoader} (listed in {@code
 * META-INF/services/io.vte.engine.spi.PeerTransportProvider}). It owns the segment names {@code
 * <scheme>://...} and {@code <scheme>+<variant>://...}; an engine starts its transport at the first
 * such name it opens, and closes it with itself. Off unless its artifact is on the class path.
 */
public interface PeerTransportProvider {

  /**
   * @return the scheme of the segment names this provider opens, lower case (e.g. {@code mooncake})
   */
  String scheme();

  /**
   * Starts a transport for one engine; nothing may block.
   *
   * @param vertx the engine's Vert.x instance
   * @return the transport
   */
  PeerTransport start(Vertx vertx);
}
