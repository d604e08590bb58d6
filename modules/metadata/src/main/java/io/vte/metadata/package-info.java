/**
 * Where segment descriptors live: the {@link io.vte.metadata.MetadataStore} contract, its options and the
 * factory {@link io.vte.metadata.MetadataStores} that picks {@code p2p} (default) or {@code etcd://}.
 */
package io.vte.metadata;
