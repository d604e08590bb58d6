package io.vte.handshake;

import static io.vte.handshake.LoopbackHandshake.DEADLINE;
import static io.vte.handshake.LoopbackHandshake.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.StatusException;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.QpInfo;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

@ExtendWith(BlockedThreadGuard.class)
class HandshakeFailureTest {

  @RegisterExtension
  final LoopbackHandshake loop =
      new LoopbackHandshake(new HandshakeServerOptions(), new HandshakeClientOptions());

  private VteException connectFailure(
      HandshakeClientPool client, String serverName, ConnectRequest request, Duration deadline) {
    Throwable failure = Await.failure(client.connect(serverName, request, deadline), WAIT);
    assertTrue(failure instanceof VteException, () -> "typed failure, got " + failure);
    return (VteException) failure;
  }

  static Stream<Arguments> handlerFailures() {
    return Stream.of(
        Arguments.of(ErrorCode.INVALID_ARGUMENT, ErrorCode.INVALID_ARGUMENT),
        Arguments.of(ErrorCode.SEGMENT_NOT_FOUND, ErrorCode.SEGMENT_NOT_FOUND),
        Arguments.of(ErrorCode.PERMISSION_DENIED, ErrorCode.PERMISSION_DENIED),
        Arguments.of(ErrorCode.ENGINE_CLOSED, ErrorCode.PEER_UNREACHABLE),
        Arguments.of(ErrorCode.TIMED_OUT, ErrorCode.TIMED_OUT),
        Arguments.of(ErrorCode.NO_RAIL, ErrorCode.INTERNAL),
        Arguments.of(ErrorCode.INTERNAL, ErrorCode.INTERNAL));
  }

  @ParameterizedTest
  @MethodSource("handlerFailures")
  void handlerFailureReachesTheClientTyped(ErrorCode thrown, ErrorCode expected) {
    loop.handler().onGetSegment =
        r -> Future.failedFuture(new VteException(thrown, "segment '" + r.getName() + "' says no"));
    Throwable failure =
        Await.failure(
            loop.pool().getSegment(loop.serverName(), Fixtures.segmentRequest("seg-x"), DEADLINE),
            WAIT);
    VteException e = (VteException) failure;
    assertEquals(expected, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains("segment 'seg-x' says no"), e.getMessage());
    assertTrue(e.getMessage().contains("GetSegment to " + loop.serverName()), e.getMessage());
  }

  @Test
  void statusExceptionPassesThrough() {
    loop.handler().onConnect =
        r -> Future.failedFuture(new StatusException(GrpcStatus.RESOURCE_EXHAUSTED, "no more QPs"));
    VteException e =
        connectFailure(loop.pool(), loop.serverName(), Fixtures.connectRequest(), DEADLINE);
    assertEquals(ErrorCode.PEER_UNREACHABLE, e.code());
    assertTrue(e.getMessage().contains("RESOURCE_EXHAUSTED: no more QPs"), e.getMessage());
  }

  @Test
  void handlerThatThrowsOrReturnsNullIsInternal() {
    loop.handler().onConnect =
        r -> {
          throw new IllegalStateException("boom");
        };
    VteException e =
        connectFailure(loop.pool(), loop.serverName(), Fixtures.connectRequest(), DEADLINE);
    assertEquals(ErrorCode.INTERNAL, e.code());
    assertTrue(e.getMessage().contains("boom"), e.getMessage());
    loop.handler().onConnect = r -> null;
    assertEquals(
        ErrorCode.INTERNAL,
        connectFailure(loop.pool(), loop.serverName(), Fixtures.connectRequest(), DEADLINE).code());
    loop.handler().onConnect = r -> Future.succeededFuture(null);
    assertEquals(
        ErrorCode.INTERNAL,
        connectFailure(loop.pool(), loop.serverName(), Fixtures.connectRequest(), DEADLINE).code());
  }

  @Test
  void invalidRequestNeverReachesTheHandler() {
    VteException e =
        connectFailure(
            loop.pool(),
            loop.serverName(),
            Fixtures.connectRequest().toBuilder().setMtu(1500).build(),
            DEADLINE);
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(
        e.getMessage().contains("mtu must be one of 256, 512, 1024, 2048, 4096: 1500"),
        e.getMessage());
    Throwable notify =
        Await.failure(
            loop.pool().notify(loop.serverName(), Fixtures.notifyRequest(0), DEADLINE), WAIT);
    assertTrue(notify.getMessage().contains("sequence must be >= 1: 0"), notify.getMessage());
    assertTrue(
        loop.handler().received.isEmpty(),
        "handler saw " + loop.handler().received.size() + " requests");
  }

  @Test
  void absurdQpCountsAreRejectedByTheServer() {
    HandshakeClientPool bigClient =
        HandshakeClientPool.create(
            loop.vertx(), new HandshakeClientOptions().setMaxMessageSize(16 << 20));
    try {
      ConnectRequest.Builder under = Fixtures.connectRequest().toBuilder();
      ConnectRequest.Builder over = Fixtures.connectRequest().toBuilder();
      for (int i = 0; i < 100_000; i++) {
        under.addQps(QpInfo.newBuilder().setQpNum(1).setPsn(1));
      }
      for (int i = 0; i < 1_000_000; i++) {
        over.addQps(QpInfo.newBuilder().setQpNum(i).setPsn(i));
      }
      VteException e = connectFailure(bigClient, loop.serverName(), under.build(), DEADLINE);
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("qps count must be 1..16: 100002"), e.getMessage());
      e = connectFailure(bigClient, loop.serverName(), over.build(), DEADLINE);
      assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains("RESOURCE_EXHAUSTED"), e.getMessage());
      assertTrue(loop.handler().received.isEmpty());
      assertTrue(
          Await.result(
                  loop.pool().notify(loop.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT)
              .getAccepted(),
          "the server keeps serving after oversized input");
    } finally {
      Await.result(bigClient.close(), WAIT);
    }
  }

  @Test
  void oversizedRequestIsRefusedBeforeSending() {
    ConnectRequest huge =
        Fixtures.connectRequest().toBuilder().setPeerNicPath("p".repeat(2 << 20)).build();
    VteException e = connectFailure(loop.pool(), loop.serverName(), huge, DEADLINE);
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("exceeds maxMessageSize 1048576"), e.getMessage());
    assertTrue(loop.handler().received.isEmpty());
  }

  @Test
  void malformedAcceptedReplyIsAProtocolError() {
    loop.handler().onConnect =
        r ->
            Future.succeededFuture(
                Fixtures.acceptedReply(r).toBuilder()
                    .setGid(ByteString.copyFromUtf8("short"))
                    .build());
    VteException e =
        connectFailure(loop.pool(), loop.serverName(), Fixtures.connectRequest(), DEADLINE);
    assertEquals(ErrorCode.PROTOCOL_ERROR, e.code());
    assertTrue(e.getMessage().contains("reply gid must be 16 bytes: 5"), e.getMessage());
    loop.handler().onConnect = r -> Future.succeededFuture(ConnectReply.getDefaultInstance());
    assertEquals(
        ErrorCode.PROTOCOL_ERROR,
        connectFailure(loop.pool(), loop.serverName(), Fixtures.connectRequest(), DEADLINE).code());
  }

  private static Future<SegmentDescriptor> bigSegment() {
    SegmentDescriptor.Builder big = Fixtures.segment("big").toBuilder();
    for (int i = 0; i < 60_000; i++) {
      big.addBuffers(
          BufferDesc.newBuilder()
              .setLocation("cpu:0")
              .setAddress(i * 4096L)
              .setLength(4096)
              .addRkeys(i));
    }
    return Future.succeededFuture(big.build());
  }

  @Test
  void replyOverTheServersLimitIsInternal() {
    loop.handler().onGetSegment = r -> bigSegment();
    VteException e =
        (VteException)
            Await.failure(
                loop.pool().getSegment(loop.serverName(), Fixtures.segmentRequest("big"), DEADLINE),
                WAIT);
    assertEquals(ErrorCode.INTERNAL, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains("exceeds maxMessageSize 1048576"), e.getMessage());
  }

  @Test
  void replyOverTheClientsLimitIsAProtocolError() {
    HandshakeServer bigServer =
        Await.result(
            HandshakeServer.start(
                loop.vertx(),
                new HandshakeServerOptions().setMaxMessageSize(4 << 20),
                loop.handler()),
            WAIT);
    try {
      loop.handler().onGetSegment = r -> bigSegment();
      VteException e =
          (VteException)
              Await.failure(
                  loop.pool()
                      .getSegment(bigServer.serverName(), Fixtures.segmentRequest("big"), DEADLINE),
                  WAIT);
      assertEquals(ErrorCode.PROTOCOL_ERROR, e.code(), e.getMessage());
      loop.handler().onGetSegment = r -> Future.succeededFuture(Fixtures.segment(r.getName()));
      assertEquals(
          "small",
          Await.result(
                  loop.pool()
                      .getSegment(
                          bigServer.serverName(), Fixtures.segmentRequest("small"), DEADLINE),
                  WAIT)
              .getName(),
          "the server keeps serving after the client refused a reply");
    } finally {
      Await.result(bigServer.close(), WAIT);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"nohost", "h:99999", "", "127.0.0.1:abc"})
  void badServerNameIsInvalidArgument(String name) {
    VteException e = connectFailure(loop.pool(), name, Fixtures.connectRequest(), DEADLINE);
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("bad server name '" + name + "'"), e.getMessage());
  }

  @Test
  void badCallArgumentsAreInvalidArguments() {
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        connectFailure(loop.pool(), null, Fixtures.connectRequest(), DEADLINE).code());
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        connectFailure(loop.pool(), loop.serverName(), null, DEADLINE).code());
    VteException e =
        connectFailure(loop.pool(), loop.serverName(), Fixtures.connectRequest(), Duration.ZERO);
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("deadline must be positive: PT0S"), e.getMessage());
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        connectFailure(
                loop.pool(), loop.serverName(), Fixtures.connectRequest(), Duration.ofSeconds(-1))
            .code());
  }

  @Test
  void closedPoolFailsWithEngineClosed() {
    HandshakeClientPool closed =
        HandshakeClientPool.create(loop.vertx(), new HandshakeClientOptions());
    Await.result(closed.close(), WAIT);
    assertEquals(
        ErrorCode.ENGINE_CLOSED,
        connectFailure(closed, loop.serverName(), Fixtures.connectRequest(), DEADLINE).code());
  }

  @Test
  void refusedPortIsPeerUnreachableQuickly() {
    NetServer probe =
        Await.result(
            loop.vertx().createNetServer().connectHandler(NetSocket::close).listen(0, "127.0.0.1"),
            WAIT);
    int port = probe.actualPort();
    Await.result(probe.close(), WAIT);
    long start = System.nanoTime();
    VteException e =
        connectFailure(loop.pool(), "127.0.0.1:" + port, Fixtures.connectRequest(), DEADLINE);
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
    assertTrue(ms < DEADLINE.toMillis(), "failed fast, not at the deadline: " + ms + " ms");
  }

  @Test
  void handlerThatNeverAnswersTimesOutAndTheServerKeepsServing() {
    Queue<Promise<ConnectReply>> stuck = new ConcurrentLinkedQueue<>();
    loop.handler().onConnect =
        r -> {
          Promise<ConnectReply> never = Promise.promise();
          stuck.add(never);
          return never.future();
        };
    List<Future<ConnectReply>> calls = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < 20; i++) {
      calls.add(
          loop.pool()
              .connect(loop.serverName(), Fixtures.connectRequest(), Duration.ofMillis(400)));
    }
    assertTrue(
        Await.result(
                loop.pool().notify(loop.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT)
            .getAccepted(),
        "others are served while 20 calls hang");
    for (Future<ConnectReply> call : calls) {
      VteException e = (VteException) Await.failure(call, WAIT);
      assertEquals(ErrorCode.TIMED_OUT, e.code(), e.getMessage());
    }
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertTrue(ms >= 390, "not before the deadline: " + ms);
    assertTrue(ms < 400 + 5_000, "close to the deadline: " + ms);
    // The server honours the caller's deadline too: it drops the calls and their timers.
    Await.untilEquals("server-side calls released", WAIT, 0, loop.server()::pendingCalls);
    assertEquals(20, stuck.size());
    // A late answer from the handler is harmless.
    stuck.forEach(p -> p.complete(Fixtures.acceptedReply(Fixtures.connectRequest())));
    loop.handler().onConnect = r -> Future.succeededFuture(Fixtures.acceptedReply(r));
    Await.result(loop.pool().connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT);
  }

  @Test
  void peerThatAcceptsTcpButNeverAnswersTimesOut() {
    List<NetSocket> held = new ArrayList<>();
    NetServer silent =
        Await.result(
            loop.vertx().createNetServer().connectHandler(held::add).listen(0, "127.0.0.1"), WAIT);
    try {
      long start = System.nanoTime();
      List<Future<ConnectReply>> calls = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        calls.add(
            loop.pool()
                .connect(
                    "127.0.0.1:" + silent.actualPort(),
                    Fixtures.connectRequest(),
                    Duration.ofMillis(500)));
      }
      assertTrue(
          Await.result(
                  loop.pool().notify(loop.serverName(), Fixtures.notifyRequest(1), DEADLINE), WAIT)
              .getAccepted());
      for (Future<ConnectReply> call : calls) {
        assertEquals(ErrorCode.TIMED_OUT, ((VteException) Await.failure(call, WAIT)).code());
      }
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms >= 490 && ms < 500 + 5_000, "failed at the deadline: " + ms + " ms");
    } finally {
      Await.result(silent.close(), WAIT);
    }
  }
}
