package io.vte.mooncake;

import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentDevice;
import io.vte.api.SegmentHandle;
import java.util.List;

/**
 * A Mooncake segment opened by a {@link MooncakeTransport}: use it as the {@code segment} of VTE
 * {@link io.vte.api.TransferRequest}s submitted to that transport. Remote addresses are absolute
 * addresses inside one of {@link #buffers()}.
 */
public final class MooncakeSegment implements SegmentHandle {

  private final MooncakeTransport owner;
  private final SegmentDescriptor descriptor;
  private final HostPort rpc;
  private final int protocolVersion;

  MooncakeSegment(
      MooncakeTransport owner, SegmentDescriptor descriptor, HostPort rpc, int protocolVersion) {
    this.owner = owner;
    this.descriptor = descriptor;
    this.rpc = rpc;
    this.protocolVersion = protocolVersion;
  }

  @Override
  public String name() {
    return descriptor.name();
  }

  /**
   * @return {@code host:port} of the segment's handshake listener
   */
  @Override
  public String serverName() {
    return rpc.toString();
  }

  /**
   * @return 1: Mooncake descriptors carry no version; reopen the segment to refresh it
   */
  @Override
  public long version() {
    return 1;
  }

  /**
   * @return no devices: the TCP transport has none
   */
  @Override
  public List<SegmentDevice> devices() {
    return List.of();
  }

  @Override
  public List<SegmentBuffer> buffers() {
    return descriptor.buffers();
  }

  /**
   * @return the descriptor the segment was opened with
   */
  public SegmentDescriptor descriptor() {
    return descriptor;
  }

  /**
   * @return the framing this transport speaks to the segment: 2 when the segment advertises it (and
   *     v1 is not forced), else 1
   */
  public int protocolVersion() {
    return protocolVersion;
  }

  /**
   * @return whether a completed WRITE means the payload is in the target's memory (protocol 2);
   *     under protocol 1 a WRITE completes once its payload has left this process, and a target
   *     that refuses it only closes the connection
   */
  public boolean acknowledgedWrites() {
    return protocolVersion >= 2;
  }

  HostPort rpc() {
    return rpc;
  }

  String host() {
    return rpc.host();
  }

  int dataPort() {
    return descriptor.tcpDataPort();
  }

  MooncakeTransport owner() {
    return owner;
  }

  /**
   * @return the buffer holding {@code [address, address + length)}, or null
   */
  SegmentBuffer find(long address, long length) {
    for (SegmentBuffer b : descriptor.buffers()) {
      if (b.contains(address, length)) {
        return b;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "MooncakeSegment[" + name() + " at " + serverName() + ", v" + protocolVersion + "]";
  }
}
