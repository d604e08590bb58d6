package io.vte.metadata.etcd;

import io.vertx.core.Vertx;
import io.vte.api.MetadataOptions;
import io.vte.metadata.MetadataStore;
import io.vte.metadata.MetadataStoreProvider;
import io.vte.metadata.impl.MetadataUri;
import java.util.Set;

/** Provides {@link EtcdMetadataStore} for {@code etcd://} and {@code etcds://} URIs. */
public final class EtcdMetadataStoreProvider implements MetadataStoreProvider {

  /** Creates the provider; {@link java.util.ServiceLoader} calls this. */
  public EtcdMetadataStoreProvider() {}

  @Override
  public Set<String> schemes() {
    return Set.of(MetadataUri.ETCD, MetadataUri.ETCDS);
  }

  @Override
  public MetadataStore create(Vertx vertx, MetadataUri uri, MetadataOptions options) {
    return new EtcdMetadataStore(vertx, uri, options);
  }
}
