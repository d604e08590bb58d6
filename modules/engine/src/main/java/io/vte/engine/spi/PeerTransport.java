package io.vte.engine.spi;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vte.api.SegmentHandle;

/**
 * One engine's transport to peers of another kind ({@link PeerTransportProvider}): opens their
 * segments, carries the slices the engine cuts from requests to them, and sends them notifications.
 * Thread-safe; nothing blocks.
 */
public interface PeerTransport {

  /**
   * Opens a segment by a name of the provider's scheme (also to read it again: the engine asks once
   * more when a request's range is not in the segment it holds).
   *
   * @param segmentName the full name, scheme included
   * @return the segment (its server name and buffers; devices are shown as they are); fails with a
   *     typed {@link io.vte.api.VteException} (INVALID_ARGUMENT naming a bad name,
   *     PEER_UNREACHABLE, SEGMENT_NOT_FOUND, PROTOCOL_ERROR)
   */
  Future<SegmentHandle> open(String segmentName);

  /**
   * Moves one slice; reports through exactly one of {@link PeerSlice#completed}, {@link
   * PeerSlice#failed} or {@link PeerSlice#dropped}. Called on any thread.
   *
   * @param slice the slice, its remote range inside a buffer of the segment it names
   */
  void carry(PeerSlice slice);

  /**
   * @param segmentName a name this transport opened
   * @param topic the notification's name
   * @param payload its bytes
   * @return completes once the peer took it
   */
  Future<Void> notify(String segmentName, String topic, Buffer payload);

  /**
   * Closes every connection; slices not yet reported end {@link PeerSlice#failed} with
   * ENGINE_CLOSED or another typed cause.
   *
   * @return completes when everything is closed
   */
  Future<Void> close();
}
