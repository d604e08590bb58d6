package io.vte.metadata;

import io.vertx.core.Vertx;
import io.vte.api.VteException;
import io.vte.metadata.impl.EtcdMetadataStore;
import io.vte.metadata.impl.MetadataUri;
import io.vte.metadata.impl.P2pMetadataStore;

/** Creates the {@link MetadataStore} a URI names. */
public final class MetadataStores {

  private MetadataStores() {}

  /**
   * Creates a store; call {@link MetadataStore#start()} before use. An etcd store keeps its state on the
   * Vert.x context current at creation (a new event-loop context when called off Vert.x) and answers on
   * each caller's context.
   *
   * @param vertx the Vert.x instance the store runs on
   * @param uri {@code p2p} (also null or empty: the default), {@code etcd://host:port[,host:port...]} or
   *     {@code etcds://...} for TLS
   * @param options the options
   * @return the store, not started
   * @throws VteException INVALID_CONFIGURATION naming the URI and the problem (malformed URI, unknown
   *     scheme, bad host or port, inconsistent credentials or TLS files, p2p without a segment fetcher)
   */
  public static MetadataStore create(Vertx vertx, String uri, MetadataOptions options) {
    MetadataUri parsed = MetadataUri.parse(uri);
    return parsed.isP2p() ? new P2pMetadataStore(options) : new EtcdMetadataStore(vertx, parsed, options);
  }
}
