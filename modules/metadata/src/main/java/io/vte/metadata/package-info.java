/**
 * Where segment descriptors live: the {@link io.vte.metadata.MetadataStore} contract, its options
 * and the factory {@link io.vte.metadata.MetadataStores} that picks {@code p2p} (default, built in)
 * or a {@link io.vte.metadata.MetadataStoreProvider} found on the class path ({@code etcd://} in
 * {@code vte-metadata-etcd}).
 */
package io.vte.metadata;
