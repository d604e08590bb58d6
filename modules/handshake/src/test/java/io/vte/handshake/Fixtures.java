package io.vte.handshake;

import com.google.protobuf.ByteString;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.QpInfo;
import io.vte.handshake.proto.SegmentDescriptor;

/** Valid messages for tests to start from. */
final class Fixtures {

  static final ByteString GID =
      ByteString.copyFrom(
          new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 127, 0, 0, 1});

  private Fixtures() {}

  static ConnectRequest connectRequest() {
    return ConnectRequest.newBuilder()
        .setLocalNicPath("127.0.0.1:7001@soft0")
        .setPeerNicPath("127.0.0.1:7002@soft1")
        .setGid(GID)
        .setLid(7001)
        .setMtu(4096)
        .addQps(QpInfo.newBuilder().setQpNum(17).setPsn(0xABCDE))
        .addQps(QpInfo.newBuilder().setQpNum(18).setPsn(0x12345))
        .setGeneration(3)
        .build();
  }

  static ConnectReply acceptedReply(ConnectRequest request) {
    ConnectReply.Builder reply =
        ConnectReply.newBuilder()
            .setStatus(ConnectStatus.ACCEPTED)
            .setLocalNicPath(request.getPeerNicPath())
            .setGid(GID)
            .setLid(7002)
            .setMtu(4096)
            .setGeneration(request.getGeneration() + 1);
    for (QpInfo qp : request.getQpsList()) {
      reply.addQps(QpInfo.newBuilder().setQpNum(qp.getQpNum() + 100).setPsn(qp.getPsn() ^ 0x1));
    }
    return reply.build();
  }

  static GetSegmentRequest segmentRequest(String name) {
    return GetSegmentRequest.newBuilder().setName(name).build();
  }

  static SegmentDescriptor segment(String name) {
    return SegmentDescriptor.newBuilder()
        .setName(name)
        .setServerName(name)
        .setTransport("soft")
        .addDevices(
            DeviceDesc.newBuilder()
                .setName("soft0")
                .setGid(GID)
                .setLid(7001)
                .setMtu(4096)
                .setActive(true))
        .addBuffers(
            BufferDesc.newBuilder()
                .setLocation("cpu:0")
                .setAddress(0x7f00_0000_0000L)
                .setLength(1 << 20)
                .addRkeys(0x1234)
                .setAccess(7))
        .setVersion(1)
        .build();
  }

  static NotifyRequest notifyRequest(long sequence) {
    return NotifyRequest.newBuilder()
        .setFrom("127.0.0.1:7001")
        .setTopic("greeting")
        .setPayload(ByteString.copyFromUtf8("hello " + sequence))
        .setSequence(sequence)
        .build();
  }
}
