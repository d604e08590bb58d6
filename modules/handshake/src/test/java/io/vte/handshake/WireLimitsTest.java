package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.impl.WireLimits;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.QpInfo;
import org.junit.jupiter.api.Test;

/** The pre-parse scan rejects absurd counts and sizes from the raw bytes. */
class WireLimitsTest {

  private static VteException rejected(
      com.google.protobuf.Descriptors.Descriptor type, byte[] bytes) {
    VteException e = assertThrows(VteException.class, () -> WireLimits.check(type, bytes));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    return e;
  }

  @Test
  void validRequestsPass() {
    assertDoesNotThrow(
        () ->
            WireLimits.check(
                ConnectRequest.getDescriptor(), Fixtures.connectRequest().toByteArray()));
    assertDoesNotThrow(
        () ->
            WireLimits.check(
                NotifyRequest.getDescriptor(), Fixtures.notifyRequest(1).toByteArray()));
    assertDoesNotThrow(() -> WireLimits.check(GetSegmentRequest.getDescriptor(), new byte[0]));
  }

  @Test
  void tooManyQpsAreCountedFromTheBytes() {
    ConnectRequest.Builder many = Fixtures.connectRequest().toBuilder().clearQps();
    for (int i = 0; i < 50_000; i++) {
      many.addQps(QpInfo.newBuilder().setQpNum(i));
    }
    VteException e = rejected(ConnectRequest.getDescriptor(), many.build().toByteArray());
    assertTrue(e.getMessage().contains("qps count must be 1..16: 50000"), e.getMessage());
  }

  @Test
  void hugeFieldsAreRejectedByTheirLengthPrefix() {
    byte[] hugeName =
        GetSegmentRequest.newBuilder().setName("n".repeat(100_000)).build().toByteArray();
    assertTrue(
        rejected(GetSegmentRequest.getDescriptor(), hugeName)
            .getMessage()
            .contains("name must be <= 1024 bytes: 100000 bytes"));
    byte[] hugePayload =
        NotifyRequest.newBuilder()
            .setPayload(ByteString.copyFrom(new byte[70_000]))
            .build()
            .toByteArray();
    assertTrue(
        rejected(NotifyRequest.getDescriptor(), hugePayload)
            .getMessage()
            .contains("payload must be <= 65536 bytes: 70000 bytes"));
    byte[] hugeGid =
        ConnectRequest.newBuilder()
            .setGid(ByteString.copyFrom(new byte[1000]))
            .build()
            .toByteArray();
    assertTrue(
        rejected(ConnectRequest.getDescriptor(), hugeGid)
            .getMessage()
            .contains("gid must be <= 64 bytes: 1000 bytes"));
  }

  @Test
  void lengthPrefixClaimingMoreThanTheMessageIsRejectedWithoutReadingIt() {
    // name (field 1, length-delimited) claiming 2^31-1 bytes, followed by nothing.
    byte[] claim = {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07};
    assertTrue(
        rejected(GetSegmentRequest.getDescriptor(), claim)
            .getMessage()
            .contains("name must be <= 1024 bytes: 2147483647 bytes"));
  }

  @Test
  void malformedBytesAreLeftToTheParser() {
    assertDoesNotThrow(
        () ->
            WireLimits.check(
                ConnectRequest.getDescriptor(), new byte[] {(byte) 0xff, (byte) 0xff}));
    assertDoesNotThrow(
        () -> WireLimits.check(ConnectRequest.getDescriptor(), new byte[] {0x0a, 0x05, 'a'}));
  }
}
