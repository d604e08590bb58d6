package io.vte.handshake;

import static io.vte.handshake.LoopbackHandshake.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.DeviceState;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.GetSegmentRequest;
import io.vte.handshake.proto.NotifyReply;
import io.vte.handshake.proto.NotifyRequest;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.handshake.proto.WatchDevicesRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The WatchDevices stream over the wire: messages in order, auth checked like the unary calls,
 * silence taken as a dead stream, and either side's end seen by the other.
 */
@ExtendWith(BlockedThreadGuard.class)
class WatchDevicesTest {

  private static final byte[] SECRET =
      "cluster-secret-0123456789abcdef".getBytes(StandardCharsets.UTF_8);

  private final Vertx vertx = Vertx.vertx();
  private final List<PushStream<DeviceStates>> streams = new CopyOnWriteArrayList<>();
  private final List<WatchDevicesRequest> requests = new CopyOnWriteArrayList<>();
  private volatile BiConsumer<WatchDevicesRequest, PushStream<DeviceStates>> onWatch =
      (request, stream) -> stream.send(states(1));

  @AfterEach
  void close() {
    Await.result(vertx.close(), WAIT);
  }

  private static DeviceStates states(long sequence) {
    return DeviceStates.newBuilder()
        .setServerName("127.0.0.1:1")
        .setIncarnation(7)
        .setSequence(sequence)
        .setSnapshot(sequence == 1)
        .addDevices(DeviceState.newBuilder().setName("d0").setActive(sequence % 2 == 1))
        .build();
  }

  private HandshakeServer server(HandshakeServerOptions options, HandshakeHandler handler) {
    return Await.result(HandshakeServer.start(vertx, options.setPort(0), handler), WAIT);
  }

  private HandshakeServer pushing(HandshakeServerOptions options) {
    return server(
        options,
        new RefusingHandler() {
          @Override
          public void watchDevices(WatchDevicesRequest request, PushStream<DeviceStates> stream) {
            requests.add(request);
            streams.add(stream);
            onWatch.accept(request, stream);
          }
        });
  }

  private static WatchDevicesRequest request(int heartbeatMs) {
    return WatchDevicesRequest.newBuilder().setWatcher("w:1").setHeartbeatMs(heartbeatMs).build();
  }

  @Test
  void messagesArriveInOrderAfterTheSnapshot() {
    HandshakeServer server = pushing(new HandshakeServerOptions());
    HandshakeClientPool pool = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
    List<DeviceStates> got = new CopyOnWriteArrayList<>();
    PushSubscription s = pool.watchDevices(server.serverName(), request(0), got::add);
    Await.until("the watch reached the handler", WAIT, () -> streams.size() == 1);
    assertEquals("w:1", requests.get(0).getWatcher());
    // Sent from this (non-Vert.x) thread: the stream hops to its own event loop, in order.
    for (long seq = 2; seq <= 200; seq++) {
      streams.get(0).send(states(seq));
    }
    Await.until("every message arrived", WAIT, () -> got.size() == 200);
    for (int i = 0; i < got.size(); i++) {
      assertEquals(i + 1, got.get(i).getSequence(), "message " + i + " in order");
    }
    assertTrue(got.get(0).getSnapshot());
    assertEquals(1, server.openStreams());
    s.cancel();
    Await.until("the server saw the watcher leave", WAIT, () -> server.openStreams() == 0);
    assertEquals(ErrorCode.ENGINE_CLOSED, code(s));
    Await.result(pool.close(), WAIT);
    Await.result(server.close(), WAIT);
  }

  @Test
  void theServersEndAndItsCloseAreSeenByTheWatcher() {
    HandshakeServer server = pushing(new HandshakeServerOptions());
    HandshakeClientPool pool = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
    PushSubscription ended = pool.watchDevices(server.serverName(), request(0), m -> {});
    Await.until("watching", WAIT, () -> streams.size() == 1);
    AtomicBoolean closeHandlerRan = new AtomicBoolean();
    streams.get(0).closeHandler(() -> closeHandlerRan.set(true));
    streams.get(0).end();
    Await.result(ended.ended(), WAIT);
    assertTrue(closeHandlerRan.get(), "the close handler ran");
    PushSubscription broken = pool.watchDevices(server.serverName(), request(0), m -> {});
    Await.until("watching again", WAIT, () -> server.openStreams() == 1);
    Await.result(server.close(), WAIT);
    Throwable failure = Await.failure(broken.ended(), WAIT);
    assertTrue(failure instanceof VteException, failure::toString);
    Await.result(pool.close(), WAIT);
  }

  @Test
  void aStreamSilentForThreeHeartbeatsEndsTimedOut() {
    onWatch = (request, stream) -> stream.send(states(1)); // then nothing, not even a heartbeat
    HandshakeServer server = pushing(new HandshakeServerOptions());
    HandshakeClientPool pool =
        HandshakeClientPool.create(
            vertx, new HandshakeClientOptions().setDefaultDeadline(Duration.ofMillis(300)));
    List<DeviceStates> got = new CopyOnWriteArrayList<>();
    PushSubscription s = pool.watchDevices(server.serverName(), request(100), got::add);
    Throwable failure = Await.failure(s.ended(), WAIT);
    assertEquals(ErrorCode.TIMED_OUT, ((VteException) failure).code(), failure.getMessage());
    assertEquals(1, got.size(), "the snapshot came first");
    Await.until("the server dropped the stream", WAIT, () -> server.openStreams() == 0);
    Await.result(pool.close(), WAIT);
    Await.result(server.close(), WAIT);
  }

  @Test
  void anUnsignedWatcherLearnsNothingWhenAuthIsOn() {
    HandshakeServer server =
        pushing(
            new HandshakeServerOptions().setAuth(HandshakeAuth.sharedSecret("cluster", SECRET)));
    HandshakeClientPool unsigned = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
    List<DeviceStates> got = new CopyOnWriteArrayList<>();
    PushSubscription denied = unsigned.watchDevices(server.serverName(), request(0), got::add);
    assertEquals(ErrorCode.PERMISSION_DENIED, code(denied));
    assertTrue(got.isEmpty() && streams.isEmpty(), "nothing reached the handler or the watcher");
    HandshakeClientPool signed =
        HandshakeClientPool.create(
            vertx,
            new HandshakeClientOptions().setAuth(HandshakeAuth.sharedSecret("cluster", SECRET)));
    signed.watchDevices(server.serverName(), request(0), got::add);
    Await.until("a signed watcher gets the snapshot", WAIT, () -> got.size() == 1);
    Await.result(signed.close(), WAIT);
    Await.result(unsigned.close(), WAIT);
    Await.result(server.close(), WAIT);
  }

  @Test
  void badRequestsAndNodesThatPushNothingAreRefusedByName() {
    HandshakeServer plain = server(new HandshakeServerOptions(), new RefusingHandler());
    HandshakeClientPool pool = HandshakeClientPool.create(vertx, new HandshakeClientOptions());
    PushSubscription refused = pool.watchDevices(plain.serverName(), request(0), m -> {});
    Throwable failure = Await.failure(refused.ended(), WAIT);
    assertEquals(ErrorCode.INVALID_ARGUMENT, ((VteException) failure).code());
    assertTrue(failure.getMessage().contains("does not push device states"), failure.getMessage());
    PushSubscription tooFast = pool.watchDevices(plain.serverName(), request(5), m -> {});
    failure = Await.failure(tooFast.ended(), WAIT);
    assertEquals(ErrorCode.INVALID_ARGUMENT, ((VteException) failure).code());
    assertTrue(failure.getMessage().contains("heartbeat_ms"), failure.getMessage());
    Await.result(pool.close(), WAIT);
    Await.result(plain.close(), WAIT);
  }

  private static ErrorCode code(PushSubscription s) {
    Throwable failure = Await.failure(s.ended(), WAIT);
    assertTrue(failure instanceof VteException, failure::toString);
    return ((VteException) failure).code();
  }

  /** Answers no unary call: these tests only watch. */
  private static class RefusingHandler implements HandshakeHandler {
    @Override
    public Future<ConnectReply> connect(ConnectRequest request) {
      return Future.failedFuture(new VteException(ErrorCode.INTERNAL, "not in this test"));
    }

    @Override
    public Future<SegmentDescriptor> getSegment(GetSegmentRequest request) {
      return Future.failedFuture(new VteException(ErrorCode.INTERNAL, "not in this test"));
    }

    @Override
    public Future<NotifyReply> notify(NotifyRequest request) {
      return Future.failedFuture(new VteException(ErrorCode.INTERNAL, "not in this test"));
    }
  }
}
