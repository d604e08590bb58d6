package io.vte.metadata;

import com.google.protobuf.ByteString;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;

/** Test descriptors. */
final class Descriptors {

  private Descriptors() {}

  /**
   * @param name segment name
   * @param serverName server name host:port
   * @param version descriptor version
   * @param buffers how many buffers
   * @return a descriptor with two devices and {@code buffers} buffers
   */
  static SegmentDescriptor sample(String name, String serverName, long version, int buffers) {
    SegmentDescriptor.Builder b =
        SegmentDescriptor.newBuilder()
            .setName(name)
            .setServerName(serverName)
            .setTransport("soft")
            .setVersion(version);
    for (int d = 0; d < 2; d++) {
      b.addDevices(
          DeviceDesc.newBuilder()
              .setName("soft" + d)
              .setGid(
                  ByteString.copyFrom(
                      new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 127, 0, 0, (byte) (d + 1)}))
              .setLid(40000 + d)
              .setMtu(4096)
              .setActive(true));
    }
    for (int i = 0; i < buffers; i++) {
      b.addBuffers(
          BufferDesc.newBuilder()
              .setLocation("cpu:0")
              .setAddress(0x7f0000000000L + i * 0x100000L)
              .setLength(1 << 20)
              .addRkeys(1000 + i)
              .addRkeys(2000 + i)
              .setAccess(7));
    }
    return b.build();
  }
}
