package io.vte.metadata;

import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.metadata.impl.MetadataUri;
import io.vte.metadata.impl.P2pMetadataStore;
import java.time.Duration;
import java.util.ServiceLoader;

/** Creates the {@link MetadataStore} a URI names. */
public final class MetadataStores {

  /** The artifact that provides the {@code etcd://} and {@code etcds://} stores. */
  public static final String ETCD_ARTIFACT = "io.vte:vte-metadata-etcd";

  /**
   * Deadline of one call to the backend of a store whose options leave it unset (an engine sets its
   * handshake deadline).
   */
  public static final Duration DEFAULT_CALL_DEADLINE = Duration.ofSeconds(3);

  private MetadataStores() {}

  /**
   * Validates options and fills in what a store needs of them: a copy with the call deadline set
   * ({@link #DEFAULT_CALL_DEADLINE} when unset) and the cluster prefix without a trailing {@code
   * /}.
   *
   * @param options the options (not changed)
   * @return the copy
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public static MetadataOptions resolve(MetadataOptions options) {
    MetadataOptions o = new MetadataOptions(options.validate());
    if (o.getCallDeadline() == null) {
      o.setCallDeadline(DEFAULT_CALL_DEADLINE);
    }
    String prefix = o.getClusterPrefix();
    if (prefix.endsWith("/")) {
      o.setClusterPrefix(prefix.substring(0, prefix.length() - 1));
    }
    return o;
  }

  /**
   * Creates a store that needs no segment fetcher (any but {@code p2p}); see {@link #create(Vertx,
   * String, MetadataOptions, SegmentFetcher)}.
   *
   * @param vertx the Vert.x instance the store runs on
   * @param uri the store's URI
   * @param options the options
   * @return the store, not started
   * @throws VteException INVALID_CONFIGURATION as the other {@code create}, and for {@code p2p}
   */
  public static MetadataStore create(Vertx vertx, String uri, MetadataOptions options) {
    return create(vertx, uri, options, null);
  }

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
   * @param options the options, validated here ({@link #resolve})
   * @param fetcher how the p2p store asks a peer for its segment, normally {@code
   *     handshakeClientPool::getSegment}; null for other stores
   * @return the store, not started
   * @throws VteException INVALID_CONFIGURATION naming the URI and the problem (malformed URI,
   *     unknown scheme, bad host or port, inconsistent credentials or TLS files, p2p without a
   *     segment fetcher, the artifact of an etcd store missing from the class path) or a bad option
   */
  public static MetadataStore create(
      Vertx vertx, String uri, MetadataOptions options, SegmentFetcher fetcher) {
    MetadataUri parsed = MetadataUri.parse(uri);
    MetadataOptions resolved = resolve(options);
    if (parsed.isP2p()) {
      return new P2pMetadataStore(resolved, fetcher);
    }
    for (MetadataStoreProvider p :
        ServiceLoader.load(MetadataStoreProvider.class, MetadataStores.class.getClassLoader())) {
      if (p.schemes().contains(parsed.scheme())) {
        return p.create(vertx, parsed, resolved);
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
