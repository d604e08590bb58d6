package io.vte.handshake;

import static io.vte.handshake.LoopbackHandshake.DEADLINE;
import static io.vte.handshake.LoopbackHandshake.WAIT;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

@ExtendWith(BlockedThreadGuard.class)
class HandshakeRoundTripTest {

  @RegisterExtension
  final LoopbackHandshake loop =
      new LoopbackHandshake(new HandshakeServerOptions(), new HandshakeClientOptions());

  @Test
  void connectRoundTripCarriesEveryField() {
    ConnectRequest request = Fixtures.connectRequest();
    ConnectReply reply =
        Await.result(loop.pool().connect(loop.serverName(), request, DEADLINE), WAIT);
    assertEquals(Fixtures.acceptedReply(request), reply);
    assertEquals(
        request, loop.handler().received.get(0), "the handler sees the request exactly as sent");
  }

  @Test
  void rejectStatusIsANormalReply() {
    loop.handler().onConnect =
        r ->
            io.vertx.core.Future.succeededFuture(
                ConnectReply.newBuilder()
                    .setStatus(ConnectStatus.UNKNOWN_DEVICE)
                    .setReason("no device soft9")
                    .build());
    ConnectReply reply =
        Await.result(
            loop.pool().connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT);
    assertEquals(ConnectStatus.UNKNOWN_DEVICE, reply.getStatus());
    assertEquals("no device soft9", reply.getReason());
  }

  @Test
  void getSegmentRoundTrip() {
    SegmentDescriptor descriptor =
        Await.result(
            loop.pool()
                .getSegment(
                    loop.serverName(), Fixtures.segmentRequest(loop.serverName()), DEADLINE),
            WAIT);
    assertEquals(Fixtures.segment(loop.serverName()), descriptor);
  }

  @Test
  void notifyRoundTripsInOrder() {
    for (long seq = 1; seq <= 20; seq++) {
      NotifyReply reply =
          Await.result(
              loop.pool().notify(loop.serverName(), Fixtures.notifyRequest(seq), null), WAIT);
      assertTrue(reply.getAccepted());
    }
    assertEquals(20, loop.handler().received.size());
    for (int i = 0; i < 20; i++) {
      assertEquals(Fixtures.notifyRequest(i + 1), loop.handler().received.get(i));
    }
  }

  @Test
  void handlerMayAnswerFromAnyThreadOrContext() {
    Context owner = loop.vertx().getOrCreateContext();
    loop.handler().onConnect =
        r -> {
          Promise<ConnectReply> reply = Promise.promise();
          owner.runOnContext(v -> reply.complete(Fixtures.acceptedReply(r)));
          return reply.future();
        };
    assertEquals(
        ConnectStatus.ACCEPTED,
        Await.result(
                loop.pool().connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT)
            .getStatus());
    loop.handler().onConnect =
        r -> {
          Promise<ConnectReply> reply = Promise.promise();
          new Thread(() -> reply.complete(Fixtures.acceptedReply(r)), "plain-thread").start();
          return reply.future();
        };
    assertEquals(
        ConnectStatus.ACCEPTED,
        Await.result(
                loop.pool().connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT)
            .getStatus());
  }

  @Test
  void sequentialConnectLatencyIsMeasured() {
    int calls = 500;
    long[] micros = new long[calls];
    for (int i = 0; i < calls; i++) {
      long start = System.nanoTime();
      Await.result(
          loop.pool().connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT);
      micros[i] = (System.nanoTime() - start) / 1_000;
    }
    java.util.Arrays.sort(micros);
    assertEquals(calls, loop.handler().received.size());
    System.out.println(
        "handshake Connect round trip over loopback, "
            + calls
            + " sequential calls: p50 "
            + micros[calls / 2]
            + " us, p99 "
            + micros[calls * 99 / 100]
            + " us, max "
            + micros[calls - 1]
            + " us");
  }

  @Test
  void serverNameIsHostColonActualPort() {
    assertTrue(loop.server().port() > 0);
    assertEquals("127.0.0.1:" + loop.server().port(), loop.serverName());
  }

  @Test
  void repliesCompleteOnTheCallersEventLoop() throws Exception {
    int callers = 4;
    for (int i = 0; i < callers; i++) {
      Context caller = loop.vertx().getOrCreateContext();
      Promise<Boolean> sameContext = Promise.promise();
      caller.runOnContext(
          v ->
              loop.pool()
                  .connect(loop.serverName(), Fixtures.connectRequest(), DEADLINE)
                  .onComplete(
                      ar ->
                          sameContext.complete(
                              ar.succeeded() && Vertx.currentContext() == caller)));
      assertTrue(
          Await.result(sameContext.future(), WAIT), "reply delivered on the caller's context " + i);
    }
  }

  @Test
  void failuresAlsoCompleteOnTheCallersEventLoop() {
    Context caller = loop.vertx().getOrCreateContext();
    Promise<Context> completedOn = Promise.promise();
    caller.runOnContext(
        v ->
            loop.pool()
                .connect("nohost", Fixtures.connectRequest(), DEADLINE)
                .onComplete(
                    ar -> completedOn.complete(ar.failed() ? Vertx.currentContext() : null)));
    assertSame(caller, Await.result(completedOn.future(), WAIT));
  }

  @Test
  void closeReleasesThreadsAndSockets() {
    loop.close();
    ResourceSnapshot before = ResourceSnapshot.take();
    for (int round = 0; round < 3; round++) {
      LoopbackHandshake again =
          new LoopbackHandshake(new HandshakeServerOptions(), new HandshakeClientOptions()).start();
      for (int i = 0; i < 10; i++) {
        Await.result(
            again.pool().connect(again.serverName(), Fixtures.connectRequest(), DEADLINE), WAIT);
      }
      again.close();
      assertEquals(0, again.server().pendingCalls());
    }
    ResourceSnapshot.assertNoLeaksSince(before, WAIT);
    assertFalse(before.threads().isEmpty());
  }
}
