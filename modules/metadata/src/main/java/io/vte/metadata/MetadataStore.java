package io.vte.metadata;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.Optional;

/**
 * Where segment descriptors live: {@code p2p} (ask the peer's handshake service directly; the
 * default, no server needed) or {@code etcd://host:port[,host:port...]} (a real etcd v3 cluster,
 * descriptors under a lease). Created by {@link MetadataStores#create}. Every call returns a Future
 * that completes within the store's deadline; nothing here blocks the caller's thread.
 */
public interface MetadataStore {

  /**
   * Connects to the backend (no-op for p2p).
   *
   * @return completes when ready; fails with {@code METADATA_UNAVAILABLE} naming the endpoints
   *     tried
   */
  Future<Void> start();

  /**
   * Publishes or replaces this node's descriptor (etcd: under the node's lease, so it vanishes when
   * the node dies). Called again whenever memory is registered or unregistered.
   *
   * @param descriptor the local descriptor
   * @return completes when stored
   */
  Future<Void> publish(SegmentDescriptor descriptor);

  /**
   * Removes this node's descriptor.
   *
   * @param segmentName the name it was published under
   * @return completes when removed
   */
  Future<Void> unpublish(String segmentName);

  /**
   * Looks up a segment by name (p2p: the server name {@code host:port}; etcd: any published name).
   *
   * @param segmentName the segment name
   * @return the descriptor; fails with {@code SEGMENT_NOT_FOUND}, {@code PEER_UNREACHABLE}, {@code
   *     METADATA_UNAVAILABLE} or {@code PROTOCOL_ERROR} for a malformed descriptor
   */
  Future<SegmentDescriptor> lookup(String segmentName);

  /**
   * Looks up a segment in the backend itself, bypassing any cache (etcd: a read of the key, whose
   * answer also updates the watch-fed cache; p2p, which caches nothing: the same as {@link
   * #lookup}). For a caller that holds a descriptor which does not admit a request, to learn
   * whether a newer one was published that the cache has not seen yet.
   *
   * @param segmentName the segment name
   * @return the descriptor as the backend holds it now; fails as {@link #lookup} does, and with
   *     {@code METADATA_UNAVAILABLE} while the backend is unreachable (degraded)
   */
  Future<SegmentDescriptor> lookupFresh(String segmentName);

  /**
   * Sets the handler told the name of a segment whose descriptor changed or vanished, so caches can
   * drop it. Called on a Vert.x context; must not block.
   *
   * @param handler receives segment names
   */
  void setInvalidationHandler(Handler<String> handler);

  /**
   * The descriptor this node published under {@code segmentName}, for the node's own GetSegment
   * handler. Reads local state only; never calls the backend.
   *
   * @param segmentName the segment name; empty means the node's first published segment
   * @return the descriptor last published under that name, if any
   */
  Optional<SegmentDescriptor> local(String segmentName);

  /**
   * @return true while the backend is unreachable and the store serves from what it has
   */
  boolean isDegraded();

  /**
   * @return how many times the store entered the degraded state (a counter for metrics)
   */
  long degradedCount();

  /**
   * Releases the backend (etcd: revokes the lease, stops watches).
   *
   * @return completes when closed
   */
  Future<Void> close();
}
