package io.vte.api;

import java.util.List;

/**
 * A peer's memory as this engine last learned it: its devices and registered buffers. Obtained from
 * {@link TransferEngine#openSegment}; the engine refreshes it when a transfer finds it stale.
 */
public interface SegmentHandle {

  /**
   * @return the segment name it was opened with
   */
  String name();

  /**
   * @return where the peer's handshake service listens, {@code host:port}
   */
  String serverName();

  /**
   * @return the descriptor version (bumps on every change on the peer)
   */
  long version();

  /**
   * @return the peer's devices
   */
  List<SegmentDevice> devices();

  /**
   * @return the peer's registered buffers
   */
  List<SegmentBuffer> buffers();
}
