package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.QpInfo;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.handshake.proto.SharedMemoryDesc;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class HandshakeValidatorTest {

  private static final String LONG = "x".repeat(257);

  static Stream<Arguments> badConnectRequests() {
    return Stream.of(
        bad("empty local path", b -> b.setLocalNicPath(""), "local_nic_path must not be empty"),
        bad(
            "wire version range inverted",
            b -> b.setWireVersionMin(3).setWireVersionMax(2),
            "wire_version_min/max: wire version range must satisfy 1 <= min <= max, got min 3,"),
        bad(
            "wire version max without min",
            b -> b.setWireVersionMax(2),
            "wire_version_min/max: wire version range must satisfy 1 <= min <= max, got min 0,"),
        bad(
            "local path without @",
            b -> b.setLocalNicPath("hostonly"),
            "local_nic_path must be server@device: 'hostonly'"),
        bad(
            "local path empty device",
            b -> b.setLocalNicPath("h:1@"),
            "local_nic_path must be server@device"),
        bad(
            "local path empty server",
            b -> b.setLocalNicPath("@soft0"),
            "local_nic_path must be server@device"),
        bad(
            "local path two @",
            b -> b.setLocalNicPath("h:1@a@b"),
            "local_nic_path must be server@device"),
        bad(
            "local path control char",
            b -> b.setLocalNicPath("h:1@so\nft"),
            "local_nic_path has a control"),
        bad(
            "local path too long",
            b -> b.setLocalNicPath(LONG + "@d"),
            "local_nic_path must be <= 256 chars"),
        bad("peer path empty", b -> b.setPeerNicPath(""), "peer_nic_path must not be empty"),
        bad(
            "peer path too long",
            b -> b.setPeerNicPath("h@" + LONG),
            "peer_nic_path must be <= 256 chars"),
        bad(
            "gid short",
            b -> b.setGid(ByteString.copyFrom(new byte[15])),
            "gid must be 16 bytes: 15"),
        bad(
            "gid long",
            b -> b.setGid(ByteString.copyFrom(new byte[17])),
            "gid must be 16 bytes: 17"),
        bad("gid missing", b -> b.clearGid(), "gid must be 16 bytes: 0"),
        bad("lid too big", b -> b.setLid(65536), "lid must be 0..65535: 65536"),
        bad("lid negative as uint32", b -> b.setLid(-1), "lid must be 0..65535: 4294967295"),
        bad("mtu zero", b -> b.setMtu(0), "mtu must be one of 256, 512, 1024, 2048, 4096: 0"),
        bad("mtu odd", b -> b.setMtu(1500), "mtu must be one of 256, 512, 1024, 2048, 4096: 1500"),
        bad("no qps", b -> b.clearQps(), "qps count must be 1..16: 0"),
        bad("17 qps", b -> addQps(b.clearQps(), 17), "qps count must be 1..16: 17"),
        bad(
            "psn 25 bits",
            b -> b.setQps(1, QpInfo.newBuilder().setQpNum(5).setPsn(1 << 24)),
            "qps[1].psn must be 24-bit: 16777216"),
        bad(
            "qp_num 25 bits",
            b -> b.setQps(0, QpInfo.newBuilder().setQpNum(1 << 24).setPsn(1)),
            "qps[0].qp_num must be 24-bit: 16777216"),
        bad("generation zero", b -> b.setGeneration(0), "generation must be >= 1: 0"));
  }

  private static Arguments bad(
      String name, UnaryOperator<ConnectRequest.Builder> change, String message) {
    return Arguments.of(name, change.apply(Fixtures.connectRequest().toBuilder()).build(), message);
  }

  private static ConnectRequest.Builder addQps(ConnectRequest.Builder builder, int count) {
    for (int i = 0; i < count; i++) {
      builder.addQps(QpInfo.newBuilder().setQpNum(i).setPsn(i));
    }
    return builder;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConnectRequests")
  void badConnectRequestIsInvalidArgumentNamingTheField(
      String name, ConnectRequest request, String message) {
    VteException e = assertThrows(VteException.class, () -> HandshakeValidator.validate(request));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(
        e.getMessage().contains(message),
        () -> "'" + e.getMessage() + "' should contain '" + message + "'");
  }

  @Test
  void goodConnectRequestsPass() {
    HandshakeValidator.validate(Fixtures.connectRequest());
    for (int mtu : new int[] {256, 512, 1024, 2048, 4096}) {
      HandshakeValidator.validate(Fixtures.connectRequest().toBuilder().setMtu(mtu).build());
    }
    HandshakeValidator.validate(
        addQps(Fixtures.connectRequest().toBuilder().clearQps(), 16)
            .setLid(65535)
            .setGeneration(Long.MAX_VALUE)
            .build());
    HandshakeValidator.validate(
        Fixtures.connectRequest().toBuilder().setLocalNicPath("h".repeat(250) + "@soft0").build());
  }

  @Test
  void aDisconnectNeedsOnlyItsPathsAndGenerations() {
    ConnectRequest disconnect =
        ConnectRequest.newBuilder()
            .setLocalNicPath("a:1@d0")
            .setPeerNicPath("b:1@d0")
            .setGeneration(3)
            .setDisconnectGeneration(9)
            .build();
    HandshakeValidator.validate(disconnect);
    VteException e =
        assertThrows(
            VteException.class,
            () ->
                HandshakeValidator.validate(
                    disconnect.toBuilder().setLocalNicPath("no-device").build()));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("local_nic_path"), e.getMessage());
    assertThrows(
        VteException.class,
        () ->
            HandshakeValidator.validate(disconnect.toBuilder().clearDisconnectGeneration().build()),
        "without disconnect_generation it is a connect, which needs its port and QPs");
  }

  @Test
  void millionQpsAreRejectedByCount() {
    ConnectRequest request = addQps(Fixtures.connectRequest().toBuilder(), 1_000_000).build();
    VteException e = assertThrows(VteException.class, () -> HandshakeValidator.validate(request));
    assertTrue(e.getMessage().contains("qps count must be 1..16: 1000002"), e.getMessage());
  }

  @Test
  void hugeStringsAreAbbreviatedInMessages() {
    ConnectRequest request =
        Fixtures.connectRequest().toBuilder().setPeerNicPath("a".repeat(1_000_000)).build();
    VteException e = assertThrows(VteException.class, () -> HandshakeValidator.validate(request));
    assertTrue(e.getMessage().contains("(1000000 chars)"), e.getMessage());
    assertTrue(e.getMessage().length() < 300, "message stays short: " + e.getMessage().length());
  }

  @Test
  void getSegmentName() {
    HandshakeValidator.validate(GetSegmentRequest.getDefaultInstance());
    HandshakeValidator.validate(Fixtures.segmentRequest("n".repeat(256)));
    VteException e =
        assertThrows(
            VteException.class, () -> HandshakeValidator.validate(Fixtures.segmentRequest(LONG)));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("name must be <= 256 chars"), e.getMessage());
  }

  static Stream<Arguments> badNotifyRequests() {
    NotifyRequest good = Fixtures.notifyRequest(1);
    return Stream.of(
        Arguments.of(
            good.toBuilder().setPayload(ByteString.copyFrom(new byte[64 * 1024 + 1])).build(),
            "payload must be <= 65536 bytes: 65537"),
        Arguments.of(good.toBuilder().setTopic(LONG).build(), "topic must be <= 256 chars"),
        Arguments.of(good.toBuilder().setSequence(0).build(), "sequence must be >= 1: 0"),
        Arguments.of(good.toBuilder().setFrom("").build(), "from must not be empty"),
        Arguments.of(good.toBuilder().setFrom(LONG).build(), "from must be <= 256 chars"));
  }

  @ParameterizedTest
  @MethodSource("badNotifyRequests")
  void badNotifyRequestIsInvalidArgument(NotifyRequest request, String message) {
    VteException e = assertThrows(VteException.class, () -> HandshakeValidator.validate(request));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains(message), e.getMessage());
  }

  @Test
  void notifyAtTheLimitsPasses() {
    HandshakeValidator.validate(
        Fixtures.notifyRequest(1).toBuilder()
            .setPayload(ByteString.copyFrom(new byte[64 * 1024]))
            .setTopic("t".repeat(256))
            .build());
  }

  @Test
  void replyWithUnknownOrMissingStatusIsAProtocolError() {
    for (ConnectReply reply :
        new ConnectReply[] {
          ConnectReply.getDefaultInstance(), ConnectReply.newBuilder().setStatusValue(99).build()
        }) {
      VteException e =
          assertThrows(VteException.class, () -> HandshakeValidator.validateReply(reply));
      assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    }
  }

  @Test
  void rejectReplyNeedsNoResponderSide() {
    HandshakeValidator.validateReply(
        ConnectReply.newBuilder().setStatus(ConnectStatus.SIMULTANEOUS_OPEN).build());
  }

  @Test
  void acceptedReplyIsCheckedLikeARequest() {
    ConnectReply good = Fixtures.acceptedReply(Fixtures.connectRequest());
    HandshakeValidator.validateReply(good);
    VteException e =
        assertThrows(
            VteException.class,
            () ->
                HandshakeValidator.validateReply(
                    good.toBuilder().setGid(ByteString.EMPTY).build()));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("reply gid must be 16 bytes: 0"), e.getMessage());
    e =
        assertThrows(
            VteException.class,
            () -> HandshakeValidator.validateReply(good.toBuilder().clearQps().build()));
    assertTrue(e.getMessage().contains("reply qps count must be 1..16: 0"), e.getMessage());
  }

  @Test
  void segmentDescriptorChecks() {
    SegmentDescriptor good = Fixtures.segment("127.0.0.1:1");
    HandshakeValidator.validateReply(good);
    SegmentDescriptor missingKey =
        good.toBuilder().setBuffers(0, good.getBuffers(0).toBuilder().clearRkeys()).build();
    VteException e =
        assertThrows(VteException.class, () -> HandshakeValidator.validateReply(missingKey));
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(
        e.getMessage().contains("buffers[0].rkeys has 0 keys for 1 devices"), e.getMessage());
    SegmentDescriptor overflow =
        good.toBuilder()
            .setBuffers(0, BufferDesc.newBuilder().setAddress(-16L).setLength(32).addRkeys(1))
            .build();
    e = assertThrows(VteException.class, () -> HandshakeValidator.validateReply(overflow));
    assertTrue(e.getMessage().contains("overflows 64 bits"), e.getMessage());
    SegmentDescriptor badGid =
        good.toBuilder()
            .setDevices(0, good.getDevices(0).toBuilder().setGid(ByteString.EMPTY))
            .build();
    e = assertThrows(VteException.class, () -> HandshakeValidator.validateReply(badGid));
    assertTrue(e.getMessage().contains("devices[0].gid must be 16 bytes"), e.getMessage());
  }

  @Test
  void sharedMemoryDescriptionsAreChecked() {
    SegmentDescriptor plain = Fixtures.segment("127.0.0.1:1");
    SharedMemoryDesc shm =
        SharedMemoryDesc.newBuilder()
            .setPath("/dev/shm/vte-1-2")
            .setNonce(ByteString.copyFrom(new byte[16]))
            .setBootId("b")
            .setUid(1000)
            .setDataOffset(4096)
            .build();
    HandshakeValidator.validateReply(withShm(plain, shm));
    for (Object[] bad :
        new Object[][] {
          {shm.toBuilder().setPath("dev/shm/x"), "buffers[0].shm.path must be an absolute path"},
          {shm.toBuilder().setPath(""), "buffers[0].shm.path must be an absolute path: ''"},
          {shm.toBuilder().setPath("/" + "p".repeat(300)), "buffers[0].shm.path must be <="},
          {shm.toBuilder().setBootId(LONG), "buffers[0].shm.boot_id must be <="},
          {
            shm.toBuilder().setNonce(ByteString.copyFrom(new byte[15])),
            "buffers[0].shm.nonce must be 16 bytes: 15"
          },
          {shm.toBuilder().clearNonce(), "buffers[0].shm.nonce must be 16 bytes: 0"},
        }) {
      SegmentDescriptor d = withShm(plain, ((SharedMemoryDesc.Builder) bad[0]).build());
      VteException e = assertThrows(VteException.class, () -> HandshakeValidator.validateReply(d));
      assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
      assertTrue(e.getMessage().contains((String) bad[1]), e.getMessage());
    }
    HandshakeValidator.validateReply(plain.toBuilder().setShmBootId("b").setShmUid(1000).build());
    VteException e =
        assertThrows(
            VteException.class,
            () -> HandshakeValidator.validateReply(plain.toBuilder().setShmBootId(LONG).build()));
    assertTrue(e.getMessage().contains("segment shm_boot_id must be <="), e.getMessage());
  }

  private static SegmentDescriptor withShm(SegmentDescriptor d, SharedMemoryDesc shm) {
    return d.toBuilder().setBuffers(0, d.getBuffers(0).toBuilder().setShm(shm)).build();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "nohost",
        "h:99999",
        "h:0",
        "h:",
        ":80",
        "h:8o",
        "h:-1",
        "::1:80",
        "h ost:80",
        "[]:80",
        "h:123456"
      })
  void badServerNamesAreInvalidArguments(String name) {
    VteException e = assertThrows(VteException.class, () -> ServerName.parse(name));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains(name), e.getMessage());
  }

  @Test
  void serverNamesParse() {
    assertEquals(new ServerName("127.0.0.1", 7001), ServerName.parse("127.0.0.1:7001"));
    assertEquals(new ServerName("::1", 80), ServerName.parse("[::1]:80"));
    assertEquals("[::1]:80", ServerName.parse("[::1]:80").toString());
    assertEquals("node-7.example:65535", ServerName.parse("node-7.example:65535").toString());
    assertThrows(VteException.class, () -> ServerName.parse(null));
    assertThrows(VteException.class, () -> ServerName.parse(""));
    assertThrows(VteException.class, () -> ServerName.parse("h".repeat(300) + ":80"));
  }
}
