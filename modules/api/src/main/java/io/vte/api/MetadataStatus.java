package io.vte.api;

/**
 * The state of an engine's metadata store.
 *
 * @param uri the store's URI, e.g. {@code p2p} or {@code etcd://10.0.0.10:2379}
 * @param degraded true while its backend is unreachable and cached descriptors are served
 * @param degradations times it turned degraded since the engine started
 */
public record MetadataStatus(String uri, boolean degraded, long degradations) {}
