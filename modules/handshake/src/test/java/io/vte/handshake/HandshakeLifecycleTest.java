package io.vte.handshake;

import static io.vte.handshake.LoopbackHandshake.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import io.vertx.grpc.client.GrpcClient;
import io.vertx.grpc.common.GrpcStatus;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.ConnectReply;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Server limits on slow or silent callers, closing with calls in flight, and many concurrent
 * callers.
 */
@ExtendWith(BlockedThreadGuard.class)
class HandshakeLifecycleTest {

  @RegisterExtension
  final LoopbackHandshake loop =
      new LoopbackHandshake(
          new HandshakeServerOptions()
              .setMaxCallDuration(Duration.ofMillis(300))
              .setIdleTimeout(Duration.ofSeconds(3)),
          new HandshakeClientOptions());

  private void handlerNeverAnswers() {
    loop.handler().onConnect = r -> Promise.<ConnectReply>promise().future();
  }

  @Test
  void callWithoutDeadlineIsAnsweredAfterMaxCallDuration() {
    handlerNeverAnswers();
    GrpcClient grpc = GrpcClient.client(loop.vertx());
    try {
      long start = System.nanoTime();
      Future<GrpcStatus> status =
          grpc.request(SocketAddress.inetSocketAddress(loop.server().port(), "127.0.0.1"))
              .compose(
                  request -> {
                    request.fullMethodName("vte.handshake.v1.Handshake/Connect");
                    request.end(Buffer.buffer(Fixtures.connectRequest().toByteArray()));
                    return request
                        .response()
                        .compose(
                            response ->
                                response
                                    .end()
                                    .transform(v -> Future.succeededFuture(response.status())));
                  });
      assertEquals(GrpcStatus.DEADLINE_EXCEEDED, Await.result(status, WAIT));
      long ms = (System.nanoTime() - start) / 1_000_000;
      assertTrue(ms >= 290 && ms < 300 + 5_000, "answered at maxCallDuration: " + ms + " ms");
      Await.untilEquals("server call released", WAIT, 0, loop.server()::pendingCalls);
    } finally {
      Await.result(grpc.close(), WAIT);
    }
  }

  @Test
  void streamThatNeverSendsItsMessageIsAnsweredAndReleased() {
    HttpClient http =
        loop.vertx()
            .createHttpClient(
                new HttpClientOptions()
                    .setProtocolVersion(HttpVersion.HTTP_2)
                    .setHttp2ClearTextUpgrade(false));
    try {
      Future<String> grpcStatus =
          http.request(
                  new RequestOptions()
                      .setMethod(HttpMethod.POST)
                      .setHost("127.0.0.1")
                      .setPort(loop.server().port())
                      .setURI("/vte.handshake.v1.Handshake/Connect")
                      .putHeader("content-type", "application/grpc"))
              .compose(
                  request -> request.setChunked(true).sendHead().compose(v -> request.response()))
              .compose(
                  response ->
                      response
                          .end()
                          .map(
                              v ->
                                  response.getTrailer("grpc-status") != null
                                      ? response.getTrailer("grpc-status")
                                      : response.getHeader("grpc-status")));
      assertEquals(
          String.valueOf(GrpcStatus.DEADLINE_EXCEEDED.code), Await.result(grpcStatus, WAIT));
      Await.untilEquals("server call released", WAIT, 0, loop.server()::pendingCalls);
      assertTrue(loop.handler().received.isEmpty());
    } finally {
      Await.result(http.close(), WAIT);
    }
  }

  @Test
  void idleConnectionIsClosedByTheServer() {
    NetSocket socket =
        Await.result(
            loop.vertx().createNetClient().connect(loop.server().port(), "127.0.0.1"), WAIT);
    AtomicBoolean closed = new AtomicBoolean();
    socket.closeHandler(v -> closed.set(true));
    Await.until("server closed the idle connection", WAIT, closed::get);
  }

  @Test
  void closingThePoolFailsCallsInFlightWithEngineClosed() {
    handlerNeverAnswers();
    HandshakeServer patient =
        Await.result(
            HandshakeServer.start(loop.vertx(), new HandshakeServerOptions(), loop.handler()),
            WAIT);
    HandshakeClientPool closing =
        HandshakeClientPool.create(loop.vertx(), new HandshakeClientOptions());
    try {
      Future<ConnectReply> call =
          closing.connect(patient.serverName(), Fixtures.connectRequest(), Duration.ofSeconds(30));
      Await.until("request reached the handler", WAIT, () -> loop.handler().received.size() == 1);
      long start = System.nanoTime();
      Await.result(closing.close(), WAIT);
      VteException e = (VteException) Await.failure(call, WAIT);
      assertEquals(ErrorCode.ENGINE_CLOSED, e.code(), e.getMessage());
      assertTrue(
          (System.nanoTime() - start) / 1_000_000 < 5_000, "failed at close, not at the deadline");
      Await.untilEquals("server call released", WAIT, 0, patient::pendingCalls);
    } finally {
      Await.result(patient.close(), WAIT);
    }
  }

  @Test
  void closingTheServerFailsCallersTypedAndReleasesCalls() {
    handlerNeverAnswers();
    HandshakeServer closing =
        Await.result(
            HandshakeServer.start(loop.vertx(), new HandshakeServerOptions(), loop.handler()),
            WAIT);
    Future<ConnectReply> call =
        loop.pool()
            .connect(closing.serverName(), Fixtures.connectRequest(), Duration.ofSeconds(30));
    Await.until("request reached the handler", WAIT, () -> loop.handler().received.size() == 1);
    assertEquals(1, closing.pendingCalls());
    long start = System.nanoTime();
    Await.result(closing.close(), WAIT);
    assertEquals(0, closing.pendingCalls());
    VteException e = (VteException) Await.failure(call, WAIT);
    assertEquals(ErrorCode.PEER_UNREACHABLE, e.code(), e.getMessage());
    assertTrue(
        (System.nanoTime() - start) / 1_000_000 < 5_000, "failed at close, not at the deadline");
  }

  @Test
  void manyThreadsShareOnePool() throws Exception {
    // A server with default limits: this class's server answers after 300 ms and drops idle links
    // after 3 s.
    HandshakeServer roomy =
        Await.result(
            HandshakeServer.start(loop.vertx(), new HandshakeServerOptions(), loop.handler()),
            WAIT);
    try {
      callFromManyThreads(roomy.serverName());
    } finally {
      Await.result(roomy.close(), WAIT);
    }
  }

  private void callFromManyThreads(String serverName) throws Exception {
    Duration deadline = Duration.ofSeconds(20);
    int threads = 8;
    int callsPerThread = 100;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    AtomicInteger succeeded = new AtomicInteger();
    List<Thread> callers = new ArrayList<>();
    List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread caller =
          new Thread(
              () -> {
                try {
                  barrier.await();
                  List<Future<?>> calls = new ArrayList<>();
                  for (int i = 0; i < callsPerThread; i++) {
                    calls.add(
                        i % 2 == 0
                            ? loop.pool()
                                .connect(
                                    serverName,
                                    Fixtures.connectRequest().toBuilder()
                                        .setGeneration(id * 1000L + i + 1)
                                        .build(),
                                    deadline)
                            : loop.pool()
                                .getSegment(
                                    serverName,
                                    Fixtures.segmentRequest("t" + id + "-" + i),
                                    deadline));
                  }
                  for (Future<?> call : calls) {
                    Await.result(call, deadline.plus(WAIT));
                    succeeded.incrementAndGet();
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "caller-" + t);
      callers.add(caller);
      caller.start();
    }
    for (Thread caller : callers) {
      caller.join(deadline.plus(WAIT).toMillis() * 2);
      assertFalse(caller.isAlive(), caller.getName() + " finished");
    }
    assertTrue(failures.isEmpty(), () -> "failures: " + failures);
    assertEquals(threads * callsPerThread, succeeded.get());
    assertEquals(threads * callsPerThread, loop.handler().received.size());
  }
}
