package io.vte.engine.impl.shm;

import io.vertx.core.Future;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Completes a descriptor from the metadata store that leaves its shared-memory buffers out (its
 * owner runs with auth on, and names its host and user instead): when the owner is on this host and
 * of this user, the owner's authenticated GetSegment gives the copy with them, so the same-host
 * rail applies. When that call fails, the store's copy stands and the network rails carry the
 * transfers.
 */
public final class SharedMemoryLookup {

  private final HostIdentity host;
  private final BiFunction<String, GetSegmentRequest, Future<SegmentDescriptor>> getSegment;

  /**
   * @param host this host and user
   * @param getSegment asks a node ({@code host:port}) for a descriptor, authenticated when auth is
   *     on
   */
  public SharedMemoryLookup(
      HostIdentity host,
      BiFunction<String, GetSegmentRequest, Future<SegmentDescriptor>> getSegment) {
    this.host = host;
    this.getSegment = getSegment;
  }

  /**
   * @param lookup a metadata lookup by segment name
   * @return the same lookup, its descriptors completed ({@link #complete})
   */
  public Function<String, Future<SegmentDescriptor>> around(
      Function<String, Future<SegmentDescriptor>> lookup) {
    return name -> lookup.apply(name).compose(this::complete);
  }

  /**
   * @param stored a descriptor as the metadata store holds it
   * @return the owner's own copy when {@code stored} leaves shared memory out for this host and
   *     user and the owner answers with a copy of the same segment at least as new; else {@code
   *     stored}
   */
  public Future<SegmentDescriptor> complete(SegmentDescriptor stored) {
    if (!host.isKnown()
        || !stored.getShmBootId().equals(host.bootId())
        || Integer.toUnsignedLong(stored.getShmUid()) != host.uid()) {
      return Future.succeededFuture(stored);
    }
    // empty name: the node's own segment, whatever name it publishes under
    return getSegment
        .apply(stored.getServerName(), GetSegmentRequest.getDefaultInstance())
        .map(
            own ->
                own.getName().equals(stored.getName()) && own.getVersion() >= stored.getVersion()
                    ? own
                    : stored)
        .otherwise(stored);
  }
}
