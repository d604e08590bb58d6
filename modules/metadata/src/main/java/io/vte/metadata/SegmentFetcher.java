package io.vte.metadata;

import io.vertx.core.Future;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import java.time.Duration;

/**
 * Asks a peer's handshake service for a segment descriptor: what the p2p store calls for a lookup.
 * {@code HandshakeClientPool::getSegment} is one.
 */
@FunctionalInterface
public interface SegmentFetcher {

  /**
   * @param serverName the peer's server name {@code host:port}
   * @param request the request
   * @param deadline how long the call may take
   * @return the descriptor; fails with a {@code VteException} ({@code PEER_UNREACHABLE}, {@code
   *     TIMED_OUT}, {@code SEGMENT_NOT_FOUND}, {@code PERMISSION_DENIED}, {@code PROTOCOL_ERROR})
   */
  Future<SegmentDescriptor> getSegment(
      String serverName, GetSegmentRequest request, Duration deadline);
}
