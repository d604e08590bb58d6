package io.vte.metadata.impl;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.MetadataStore;
import io.vte.metadata.SegmentFetcher;
import java.time.Duration;
import java.util.Optional;

/**
 * The embedded default: no metadata server. A segment's name is its node's server name {@code
 * host:port}; a lookup asks that node's handshake service (GetSegment) within the call deadline,
 * and {@link #publish} only keeps the local descriptor for this node's own GetSegment handler
 * ({@link #local}). There is no invalidation source (the engine refreshes a descriptor when it
 * finds it stale) and the store is never degraded.
 */
public final class P2pMetadataStore implements MetadataStore {

  private final SegmentFetcher fetcher;
  private final Duration deadline;
  private final LocalSegments local = new LocalSegments();
  private volatile boolean closed;

  /**
   * @param options the options, their call deadline set
   * @param fetcher how a peer is asked for its segment
   * @throws VteException INVALID_CONFIGURATION when no segment fetcher is given
   */
  public P2pMetadataStore(MetadataOptions options, SegmentFetcher fetcher) {
    if (fetcher == null) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "metadata URI 'p2p' needs a segment fetcher:"
              + " pass handshakeClientPool::getSegment to MetadataStores.create");
    }
    this.fetcher = fetcher;
    this.deadline = options.getCallDeadline();
  }

  @Override
  public Future<Void> start() {
    return closed ? Future.failedFuture(closedError()) : Future.succeededFuture();
  }

  @Override
  public Future<Void> publish(SegmentDescriptor descriptor) {
    VteException invalid = LocalSegments.publishError(descriptor);
    if (invalid != null) {
      return Future.failedFuture(invalid);
    }
    if (closed) {
      return Future.failedFuture(closedError());
    }
    local.put(descriptor);
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> unpublish(String segmentName) {
    try {
      LocalSegments.checkName(segmentName);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    local.remove(segmentName);
    return Future.succeededFuture();
  }

  /** The p2p store caches nothing: every lookup asks the peer. */
  @Override
  public Future<SegmentDescriptor> lookupFresh(String segmentName) {
    return lookup(segmentName);
  }

  /**
   * Asks the node {@code segmentName} ({@code host:port}) for its descriptor.
   *
   * @param segmentName the peer's server name
   * @return the validated descriptor; fails with the fetcher's typed error (PEER_UNREACHABLE,
   *     TIMED_OUT, SEGMENT_NOT_FOUND, PERMISSION_DENIED, PROTOCOL_ERROR, INVALID_ARGUMENT for a bad
   *     server name) or PROTOCOL_ERROR for a descriptor missing required fields
   */
  @Override
  public Future<SegmentDescriptor> lookup(String segmentName) {
    try {
      LocalSegments.checkName(segmentName);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    if (closed) {
      return Future.failedFuture(closedError());
    }
    GetSegmentRequest request = GetSegmentRequest.newBuilder().setName(segmentName).build();
    Future<SegmentDescriptor> reply;
    try {
      reply = fetcher.getSegment(segmentName, request, deadline);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    return reply.transform(
        ar -> {
          if (ar.failed()) {
            Throwable t = ar.cause();
            return Future.failedFuture(
                t instanceof VteException
                    ? t
                    : new VteException(
                        ErrorCode.PEER_UNREACHABLE,
                        "GetSegment on " + segmentName + " failed: " + t,
                        t));
          }
          DescriptorValidator.validate("GetSegment reply of " + segmentName, ar.result());
          return Future.succeededFuture(ar.result());
        });
  }

  @Override
  public Optional<SegmentDescriptor> local(String segmentName) {
    return local.get(segmentName);
  }

  /**
   * Does nothing: p2p has no source of invalidations; the engine refreshes stale descriptors
   * itself.
   */
  @Override
  public void setInvalidationHandler(Handler<String> handler) {}

  /**
   * @return false: there is no backend to lose
   */
  @Override
  public boolean isDegraded() {
    return false;
  }

  /**
   * @return 0: there is no backend to lose
   */
  @Override
  public long degradedCount() {
    return 0;
  }

  @Override
  public Future<Void> close() {
    closed = true;
    return Future.succeededFuture();
  }

  private static VteException closedError() {
    return new VteException(ErrorCode.ENGINE_CLOSED, "p2p metadata store is closed");
  }
}
