package io.vte.handshake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(BlockedThreadGuard.class)
class HandshakeRoundTripTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration DEADLINE = Duration.ofSeconds(5);

  private Vertx vertx;
  private RecordingHandler handler;
  private HandshakeServer server;
  private HandshakeClientPool pool;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    handler = new RecordingHandler();
    server = Await.result(HandshakeServer.start(vertx, new HandshakeServerOptions(), handler), WAIT);
    pool = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
  }

  @AfterEach
  void stop() {
    Await.result(pool.close(), WAIT);
    Await.result(server.close(), WAIT);
    Await.result(vertx.close(), WAIT);
  }

  @Test
  void connectRoundTripCarriesEveryField() {
    ConnectRequest request = Fixtures.connectRequest();
    ConnectReply reply = Await.result(pool.connect(server.serverName(), request, DEADLINE), WAIT);
    assertEquals(Fixtures.acceptedReply(request), reply);
    assertEquals(request, handler.received.get(0), "the handler sees the request exactly as sent");
  }

  @Test
  void rejectStatusIsANormalReply() {
    handler.onConnect = r -> io.vertx.core.Future.succeededFuture(
        ConnectReply.newBuilder().setStatus(ConnectStatus.UNKNOWN_DEVICE).setReason("no device soft9").build());
    ConnectReply reply = Await.result(pool.connect(server.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT);
    assertEquals(ConnectStatus.UNKNOWN_DEVICE, reply.getStatus());
    assertEquals("no device soft9", reply.getReason());
  }

  @Test
  void getSegmentRoundTrip() {
    SegmentDescriptor descriptor = Await.result(
        pool.getSegment(server.serverName(), Fixtures.segmentRequest(server.serverName()), DEADLINE), WAIT);
    assertEquals(Fixtures.segment(server.serverName()), descriptor);
  }

  @Test
  void notifyRoundTripsInOrder() {
    for (long seq = 1; seq <= 20; seq++) {
      NotifyReply reply = Await.result(pool.notify(server.serverName(), Fixtures.notifyRequest(seq), null), WAIT);
      assertTrue(reply.getAccepted());
    }
    assertEquals(20, handler.received.size());
    for (int i = 0; i < 20; i++) {
      assertEquals(Fixtures.notifyRequest(i + 1), handler.received.get(i));
    }
  }

  @Test
  void handlerMayAnswerFromAnyThreadOrContext() {
    Context owner = vertx.getOrCreateContext();
    handler.onConnect = r -> {
      Promise<ConnectReply> reply = Promise.promise();
      owner.runOnContext(v -> reply.complete(Fixtures.acceptedReply(r)));
      return reply.future();
    };
    assertEquals(ConnectStatus.ACCEPTED, Await.result(pool.connect(server.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT).getStatus());
    handler.onConnect = r -> {
      Promise<ConnectReply> reply = Promise.promise();
      new Thread(() -> reply.complete(Fixtures.acceptedReply(r)), "plain-thread").start();
      return reply.future();
    };
    assertEquals(ConnectStatus.ACCEPTED, Await.result(pool.connect(server.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT).getStatus());
  }

  @Test
  void sequentialConnectLatencyIsMeasured() {
    int calls = 500;
    long[] micros = new long[calls];
    for (int i = 0; i < calls; i++) {
      long start = System.nanoTime();
      Await.result(pool.connect(server.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT);
      micros[i] = (System.nanoTime() - start) / 1_000;
    }
    java.util.Arrays.sort(micros);
    assertEquals(calls, handler.received.size());
    System.out.println("handshake Connect round trip over loopback, " + calls + " sequential calls: p50 "
        + micros[calls / 2] + " us, p99 " + micros[calls * 99 / 100] + " us, max " + micros[calls - 1] + " us");
  }

  @Test
  void serverNameIsHostColonActualPort() {
    assertTrue(server.port() > 0);
    assertEquals("127.0.0.1:" + server.port(), server.serverName());
  }

  @Test
  void repliesCompleteOnTheCallersEventLoop() throws Exception {
    int callers = 4;
    for (int i = 0; i < callers; i++) {
      Context caller = vertx.getOrCreateContext();
      Promise<Boolean> sameContext = Promise.promise();
      caller.runOnContext(v -> pool.connect(server.serverName(), Fixtures.connectRequest(), DEADLINE)
          .onComplete(ar -> sameContext.complete(ar.succeeded() && Vertx.currentContext() == caller)));
      assertTrue(Await.result(sameContext.future(), WAIT), "reply delivered on the caller's context " + i);
    }
  }

  @Test
  void failuresAlsoCompleteOnTheCallersEventLoop() {
    Context caller = vertx.getOrCreateContext();
    Promise<Context> completedOn = Promise.promise();
    caller.runOnContext(v -> pool.connect("nohost", Fixtures.connectRequest(), DEADLINE)
        .onComplete(ar -> completedOn.complete(ar.failed() ? Vertx.currentContext() : null)));
    assertSame(caller, Await.result(completedOn.future(), WAIT));
  }

  @Test
  void closeReleasesThreadsAndSockets() {
    Await.result(pool.close(), WAIT);
    Await.result(server.close(), WAIT);
    Await.result(vertx.close(), WAIT);
    ResourceSnapshot before = ResourceSnapshot.take();
    for (int round = 0; round < 3; round++) {
      Vertx v = Vertx.vertx();
      HandshakeServer s = Await.result(HandshakeServer.start(v, new HandshakeServerOptions(), new RecordingHandler()), WAIT);
      HandshakeClientPool p = HandshakeClientPool.create(v, new HandshakeClientOptions());
      for (int i = 0; i < 10; i++) {
        Await.result(p.connect(s.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT);
      }
      Await.result(p.close(), WAIT);
      Await.result(s.close(), WAIT);
      assertEquals(0, s.pendingCalls());
      Await.result(v.close(), WAIT);
    }
    ResourceSnapshot.assertNoLeaksSince(before, WAIT);
    assertFalse(before.threads().isEmpty());
    // fresh instances for @AfterEach
    vertx = Vertx.vertx();
    server = Await.result(HandshakeServer.start(vertx, new HandshakeServerOptions(), handler), WAIT);
    pool = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
  }
}
