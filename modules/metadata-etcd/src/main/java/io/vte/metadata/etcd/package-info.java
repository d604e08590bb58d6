/**
 * The etcd v3 metadata store ({@code etcd://} and {@code etcds://}), found by {@link
 * java.util.ServiceLoader} as a {@link io.vte.metadata.MetadataStoreProvider}.
 */
package io.vte.metadata.etcd;
