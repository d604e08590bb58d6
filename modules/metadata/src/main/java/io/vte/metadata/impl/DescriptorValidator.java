package io.vte.metadata.impl;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.SegmentDescriptor;

/**
 * Checks a segment descriptor from any source (a peer's GetSegment reply, a metadata backend, a
 * publisher).
 */
public final class DescriptorValidator {

  private DescriptorValidator() {}

  /**
   * Checks the fields every peer relies on: a name, a server name, and one rkey per device for each
   * buffer.
   *
   * @param source where the descriptor came from, named in errors
   * @param descriptor the descriptor
   * @throws VteException PROTOCOL_ERROR naming the source and the missing or inconsistent field
   */
  public static void validate(String source, SegmentDescriptor descriptor) {
    if (descriptor.getName().isEmpty()) {
      throw bad(source, "missing field name");
    }
    if (descriptor.getServerName().isEmpty()) {
      throw bad(source, "missing field server_name");
    }
    for (int i = 0; i < descriptor.getBuffersCount(); i++) {
      BufferDesc b = descriptor.getBuffers(i);
      if (b.getLength() == 0) {
        throw bad(source, "buffer " + i + " has length 0");
      }
      if (b.getRkeysCount() != descriptor.getDevicesCount()) {
        throw bad(
            source,
            "buffer "
                + i
                + " has "
                + b.getRkeysCount()
                + " rkeys for "
                + descriptor.getDevicesCount()
                + " devices");
      }
    }
  }

  /**
   * @param source where the descriptor came from
   * @param why what is wrong
   * @return a PROTOCOL_ERROR naming both
   */
  public static VteException bad(String source, String why) {
    return new VteException(
        ErrorCode.PROTOCOL_ERROR, "bad segment descriptor at " + source + ": " + why);
  }
}
