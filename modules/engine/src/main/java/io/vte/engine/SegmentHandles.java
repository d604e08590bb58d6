package io.vte.engine;

import io.vte.api.SegmentHandle;
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
   * @param descriptor the peer's descriptor
   * @return a handle of it
   */
  public static SegmentHandle of(String name, SegmentDescriptor descriptor) {
    return new PeerSegment(name, descriptor);
  }
}
