package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.QpInfo;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Oversized and absurd fields, on the wire and through the API: each is rejected with a status or
 * typed error that names the field, and nothing is allocated for it (no QP, no endpoint, no
 * thread).
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class AbsurdInputTest {

  private static final String HUGE = "x".repeat(900_000);
  private static final int INVALID_ARGUMENT = 3;
  private static final int RESOURCE_EXHAUSTED = 8;

  private LocalEngines local;
  private TransferEngine engine;
  private RawGrpc grpc;
  private int rejected;

  @BeforeEach
  void start() {
    local = new LocalEngines();
    engine = local.start(LocalEngines.options("abs", 2, null, 0));
    grpc = new RawGrpc(local.vertx(), engine.serverName(), null);
  }

  @AfterEach
  void stop() {
    try {
      grpc.close();
    } finally {
      local.close();
    }
  }

  private ConnectRequest.Builder connect() {
    return ConnectRequest.newBuilder()
        .setLocalNicPath("127.0.0.1:1@peer0")
        .setPeerNicPath(engine.diagnostics().devices().get(0).nicPath())
        .setGid(ByteString.copyFrom(new byte[16]))
        .setLid(4791)
        .setMtu(4096)
        .addQps(QpInfo.newBuilder().setQpNum(7).setPsn(1))
        .setGeneration(1);
  }

  /**
   * Sends a Connect and requires a rejection naming {@code field}: a gRPC error or a non-ACCEPTED
   * reply.
   */
  private void assertConnectRejected(
      String what, UnaryOperator<ConnectRequest.Builder> absurd, String field)
      throws InvalidProtocolBufferException {
    int qpsBefore = liveQps();
    RawGrpc.Outcome o =
        Await.result(
            grpc.call("Connect", RawGrpc.frame(absurd.apply(connect()).build().toByteArray())),
            LocalEngines.WAIT);
    String reason;
    if (o.grpcStatus() == 0) {
      ConnectReply reply = ConnectReply.parseFrom(RawGrpc.message(o));
      assertNotEquals(ConnectStatus.ACCEPTED, reply.getStatus(), what + " was accepted");
      reason = reply.getStatus() + ": " + reply.getReason();
    } else {
      assertTrue(
          o.grpcStatus() == INVALID_ARGUMENT || o.grpcStatus() == RESOURCE_EXHAUSTED,
          what + ": " + o.label());
      reason = "grpc " + o.grpcStatus() + ": " + o.message();
    }
    assertTrue(reason.contains(field), what + ": the rejection names " + field + ": " + reason);
    assertEquals(qpsBefore, liveQps(), what + ": no QP was created");
    pass(what, reason);
  }

  private void assertCallRejected(String what, String method, Buffer body, String field) {
    RawGrpc.Outcome o = Await.result(grpc.call(method, body), LocalEngines.WAIT);
    assertTrue(
        o.grpcStatus() == INVALID_ARGUMENT || o.grpcStatus() == RESOURCE_EXHAUSTED,
        what + ": " + o.label() + " " + o.message());
    assertTrue(
        field == null || String.valueOf(o.message()).contains(field),
        what + ": names " + field + ": " + o.message());
    assertNotNull(o.body());
    pass(what, "grpc " + o.grpcStatus() + ": " + o.message());
  }

  private void pass(String what, String reason) {
    rejected++;
    String shortReason = reason.length() > 90 ? reason.substring(0, 90) + "..." : reason;
    ReliabilityReport.record(
        new ScenarioFigures(
            "absurd: " + what,
            1,
            0,
            Double.NaN,
            Double.NaN,
            Double.NaN,
            "rejected, " + shortReason));
  }

  private int liveQps() {
    return engine.diagnostics().devices().stream().mapToInt(d -> d.liveQpNumbers().size()).sum();
  }

  @Test
  void absurdHandshakeFieldsAreRejectedWithAStatus() throws Exception {
    assertConnectRejected(
        "Connect with 20000 QPs",
        b -> {
          for (int i = 0; i < 20_000; i++) {
            b.addQps(QpInfo.newBuilder().setQpNum(i + 8).setPsn(i));
          }
          return b;
        },
        "qps");
    assertConnectRejected(
        "Connect with qp_num 1e9",
        b -> b.setQps(0, QpInfo.newBuilder().setQpNum(1_000_000_000)),
        "qp");
    assertConnectRejected(
        "Connect with psn -1", b -> b.setQps(0, QpInfo.newBuilder().setQpNum(9).setPsn(-1)), "psn");
    assertConnectRejected("Connect with mtu 1e9", b -> b.setMtu(1_000_000_000), "mtu");
    assertConnectRejected("Connect with mtu -1", b -> b.setMtu(-1), "mtu");
    assertConnectRejected("Connect with lid 1e9", b -> b.setLid(1_000_000_000), "lid");
    assertConnectRejected(
        "Connect with a 3-byte gid", b -> b.setGid(ByteString.copyFrom(new byte[3])), "gid");
    assertConnectRejected("Connect with generation 0", b -> b.setGeneration(0), "generation");
    assertConnectRejected(
        "Connect with a 900 KB nic path", b -> b.setLocalNicPath(HUGE + "@d"), "local_nic_path");
    assertCallRejected(
        "GetSegment with a 900 KB name",
        "GetSegment",
        RawGrpc.frame(GetSegmentRequest.newBuilder().setName(HUGE).build().toByteArray()),
        "name");
    assertCallRejected(
        "Notify with a 900 KB topic",
        "Notify",
        RawGrpc.frame(
            NotifyRequest.newBuilder()
                .setFrom("127.0.0.1:1")
                .setTopic(HUGE)
                .setSequence(1)
                .build()
                .toByteArray()),
        "topic");
    assertCallRejected(
        "Notify with a 200 KB payload",
        "Notify",
        RawGrpc.frame(
            NotifyRequest.newBuilder()
                .setFrom("127.0.0.1:1")
                .setTopic("t")
                .setPayload(ByteString.copyFrom(new byte[200_000]))
                .setSequence(1)
                .build()
                .toByteArray()),
        "payload");
    assertCallRejected(
        "a 2 MiB message",
        "GetSegment",
        RawGrpc.frame(
            GetSegmentRequest.newBuilder().setName("y".repeat(2 << 20)).build().toByteArray()),
        null);
    Buffer claims =
        Buffer.buffer().appendByte((byte) 0).appendInt(1_000_000_000).appendBytes(new byte[64]);
    RawGrpc.Outcome o = Await.result(grpc.call("Connect", claims), LocalEngines.WAIT);
    assertTrue(
        o.grpcStatus() == INVALID_ARGUMENT || o.grpcStatus() == RESOURCE_EXHAUSTED,
        "a frame claiming 1e9 bytes: " + o.label());
    pass("frame header claiming 1e9 bytes", o.label() + ": " + o.message());
    assertTrue(rejected >= 14);
  }

  @Test
  void absurdTransfersAndRegistrationsGetTypedErrors() {
    RegisteredBuffer buffer = local.register(engine, 1 << 20);
    SegmentHandle self = Await.result(engine.openSegment(engine.serverName()), LocalEngines.WAIT);
    long remote = self.buffers().get(0).address();
    assertTyped(
        "transfer of length -1",
        submit(TransferRequest.write(buffer, 0, self, remote, -1)),
        ErrorCode.INVALID_ARGUMENT,
        ErrorCode.OUT_OF_RANGE);
    assertTyped(
        "transfer of length Long.MAX_VALUE",
        submit(TransferRequest.write(buffer, 0, self, remote, Long.MAX_VALUE)),
        ErrorCode.INVALID_ARGUMENT,
        ErrorCode.OUT_OF_RANGE);
    assertTyped(
        "transfer at local offset -4096",
        submit(TransferRequest.write(buffer, -4096, self, remote, 4096)),
        ErrorCode.INVALID_ARGUMENT,
        ErrorCode.OUT_OF_RANGE);
    assertTyped(
        "transfer at remote address -1",
        submit(TransferRequest.write(buffer, 0, self, -1, 4096)),
        ErrorCode.INVALID_ARGUMENT,
        ErrorCode.OUT_OF_RANGE);
    assertTyped(
        "register length -5",
        engine.register(local.allocate(4096), -5, "cpu:0"),
        ErrorCode.INVALID_ARGUMENT,
        ErrorCode.OUT_OF_RANGE);
  }

  @Test
  void hugeLocationTagIsRejectedAtRegistration() {
    Future<RegisteredBuffer> f = engine.register(local.allocate(4096), 4096, HUGE);
    Await.until("registration ends", LocalEngines.WAIT, f::isComplete);
    if (f.succeeded()) {
      Future<SegmentHandle> open =
          local.start(LocalEngines.options("abs2", 80, null, 0)).openSegment(engine.serverName());
      Await.until("openSegment ends", LocalEngines.WAIT, open::isComplete);
      throw new AssertionError(
          "a 900 KB location tag was registered; a peer's openSegment then "
              + (open.succeeded() ? "succeeded" : "failed: " + open.cause()));
    }
    assertTyped("register a 900 KB location", f, ErrorCode.INVALID_ARGUMENT);
  }

  private Future<?> submit(TransferRequest request) {
    return engine
        .submit(List.of(request), new TransferOptions())
        .result()
        .compose(
            r -> {
              VteException cause = r.requests().get(0).cause();
              return cause == null ? Future.succeededFuture(r) : Future.failedFuture(cause);
            });
  }

  private void assertTyped(String what, Future<?> f, ErrorCode... codes) {
    Throwable t = Await.failure(f, LocalEngines.WAIT);
    VteException e = assertInstanceOf(VteException.class, t, what);
    assertTrue(List.of(codes).contains(e.code()), what + ": " + e.code() + " " + e.getMessage());
    pass(what, e.code() + ": " + e.getMessage());
  }

  @Test
  void absurdEngineOptionsAreRefusedBeforeAnythingStarts() {
    ResourceSnapshot before = ResourceSnapshot.take();
    assertRefused(
        "workersPerContext 1e9", o -> o.setWorkersPerContext(1_000_000_000), "workersPerContext");
    assertRefused("cqSize 1e9", o -> o.setCqSize(1_000_000_000), "cqSize");
    assertRefused(
        "maxOutstandingPerQp 1e9",
        o -> o.setMaxOutstandingPerQp(1_000_000_000),
        "maxOutstandingPerQp");
    assertRefused("sliceSize -1", o -> o.setSliceSize(-1), "sliceSize");
    assertRefused("endpointCacheSize -1", o -> o.setEndpointCacheSize(-1), "endpointCacheSize");
    assertRefused("rpcPort 1e9", o -> o.setRpcPort(1_000_000_000), "rpcPort");
    ResourceSnapshot.assertNoLeaksSince(before, LocalEngines.WAIT);
  }

  private void assertRefused(String what, UnaryOperator<EngineOptions> absurd, String field) {
    Throwable t =
        Await.failure(
            TransferEngine.create(
                local.vertx(), absurd.apply(LocalEngines.options("bad", 80, null, 0))),
            LocalEngines.WAIT);
    VteException e = assertInstanceOf(VteException.class, t, what);
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code(), what);
    assertTrue(e.getMessage().contains(field), what + " names " + field + ": " + e.getMessage());
    pass("option " + what, e.getMessage());
  }
}
