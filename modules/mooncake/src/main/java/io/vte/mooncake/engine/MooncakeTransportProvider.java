package io.vte.mooncake.engine;

import io.vertx.core.Vertx;
import io.vte.engine.spi.PeerTransport;
import io.vte.engine.spi.PeerTransportProvider;
import io.vte.mooncake.MooncakeOptions;
import io.vte.mooncake.MooncakeTransport;

/**
 * Plugs Mooncake's TCP transport into VTE engines (found with {@link java.util.ServiceLoader} when
 * this artifact is on the class path): an engine opens {@code mooncake://host:rpc_port} and {@code
 * mooncake+etcd://etcd-host:port/segment} with {@code openSegment}, and its batches, deadlines,
 * cancel and {@code notify} reach Mooncake nodes. Uses the default {@link MooncakeOptions}.
 */
public final class MooncakeTransportProvider implements PeerTransportProvider {

  /** For {@link java.util.ServiceLoader}. */
  public MooncakeTransportProvider() {}

  @Override
  public String scheme() {
    return "mooncake";
  }

  @Override
  public PeerTransport start(Vertx vertx) {
    return new MooncakeEngineTransport(MooncakeTransport.create(vertx, new MooncakeOptions()));
  }
}
