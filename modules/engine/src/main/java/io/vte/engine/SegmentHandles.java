package io.vte.engine;

import com.google.protobuf.InvalidProtocolBufferException;
import io.vte.api.ErrorCode;
import io.vte.api.SegmentHandle;
import io.vte.api.VteException;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.handshake.proto.SegmentDescriptor;

/**
 * Segment handles over descriptors that did not come from an engine's metadata store: one a tool
 * read elsewhere (from etcd, say), or one a test rewrote to check that the peer refuses what the
 * descriptor lies about. Any engine accepts such a handle in its requests as it accepts its own;
 * the responder still checks every remote access against its own registrations.
 */
public final class SegmentHandles {

  private SegmentHandles() {}

  /**
   * @param name the segment's name (its server name for p2p)
   * @param descriptor the peer's descriptor in its wire form: the {@code SegmentDescriptor} message
   *     of {@code vte_handshake.proto}, serialized, as {@code GetSegment} answers it
   * @return a handle of it
   * @throws VteException INVALID_ARGUMENT when the bytes are not such a message
   */
  public static SegmentHandle of(String name, byte[] descriptor) {
    try {
      return new PeerSegment(name, SegmentDescriptor.parseFrom(descriptor));
    } catch (InvalidProtocolBufferException e) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "descriptor of segment '"
              + name
              + "' is not a SegmentDescriptor message: "
              + e.getMessage(),
          e);
    }
  }
}
