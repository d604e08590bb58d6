package io.vte.metadata;

import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.metadata.impl.MetadataUri;
import io.vte.metadata.impl.P2pMetadataStore;
import java.util.ServiceLoader;

/** Creates the {@link MetadataStore} a URI names. */
public final class MetadataStores {

  /** The artifact that provides the {@code etcd://} and {@code etcds://} stores. */
  public static final String ETCD_ARTIFACT = "io.vte:vte-metadata-etcd";

  private MetadataStores() {}

  /**
   * Creates a store; call {@link MetadataStore#start()} before use. {@code p2p} is built in; other
   * schemes come from a {@link MetadataStoreProvider} on the class path. An etcd store keeps its
   * state on the Vert.x context current at creation (a new event-loop context when called off
   * Vert.x) and answers on each caller's context.
   *
   * @param vertx the Vert.x instance the store runs on
   * @param uri {@code p2p} (also null or empty: the default), {@code
   *     etcd://host:port[,host:port...]} or {@code etcds://...} for TLS (both need {@value
   *     #ETCD_ARTIFACT} on the class path)
   * @param options the options
   * @return the store, not started
   * @throws VteException INVALID_CONFIGURATION naming the URI and the problem (malformed URI,
   *     unknown scheme, bad host or port, inconsistent credentials or TLS files, p2p without a
   *     segment fetcher, the artifact of an etcd store missing from the class path)
   */
  public static MetadataStore create(Vertx vertx, String uri, MetadataOptions options) {
    MetadataUri parsed = MetadataUri.parse(uri);
    if (parsed.isP2p()) {
      return new P2pMetadataStore(options);
    }
    for (MetadataStoreProvider p :
        ServiceLoader.load(MetadataStoreProvider.class, MetadataStores.class.getClassLoader())) {
      if (p.schemes().contains(parsed.scheme())) {
        return p.create(vertx, parsed, options);
      }
    }
    throw new VteException(
        ErrorCode.INVALID_CONFIGURATION,
        "metadata URI '"
            + uri
            + "': no store for scheme '"
            + parsed.scheme()
            + "' on the class path; add the dependency "
            + ETCD_ARTIFACT);
  }
}
