package io.vte.metadata;

import io.vertx.core.Vertx;
import io.vte.api.MetadataOptions;
import io.vte.metadata.impl.MetadataUri;
import java.util.Set;

/**
 * A metadata store implementation found at run time with {@link java.util.ServiceLoader} (listed in
 * {@code META-INF/services/io.vte.metadata.MetadataStoreProvider}), so a backend and its client
 * libraries are on the class path only for users who ask for it: {@code io.vte:vte-metadata-etcd}
 * provides {@code etcd://} and {@code etcds://}.
 */
public interface MetadataStoreProvider {

  /**
   * @return the URI schemes this provider serves, e.g. {@code etcd} and {@code etcds}
   */
  Set<String> schemes();

  /**
   * Creates a store, not started.
   *
   * @param vertx the Vert.x instance the store runs on
   * @param uri the parsed URI, with one of {@link #schemes()}
   * @param options the options
   * @return the store
   * @throws io.vte.api.VteException INVALID_CONFIGURATION naming the bad setting
   */
  MetadataStore create(Vertx vertx, MetadataUri uri, MetadataOptions options);
}
