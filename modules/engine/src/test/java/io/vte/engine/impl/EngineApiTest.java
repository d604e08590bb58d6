package io.vte.engine.impl;

import static io.vte.engine.impl.EngineFixture.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.SegmentHandle;
import io.vte.api.TaskState;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The public API on real engines over soft verbs: creation errors, registration, bad input,
 * notifications.
 */
@ExtendWith(BlockedThreadGuard.class)
class EngineApiTest {

  private final EngineFixture fx = new EngineFixture();

  @AfterEach
  void close() {
    fx.close();
  }

  private static VteException failure(io.vertx.core.Future<?> f) {
    return (VteException) Await.failure(f, WAIT);
  }

  @Test
  void creationErrorsAreTyped() {
    Vertx vertx = Vertx.vertx();
    fx.vertxes.add(vertx);
    VteException bad = failure(TransferEngine.create(vertx, EngineFixture.options("x", 2, 0)));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, bad.code());
    assertTrue(bad.getMessage().contains("workersPerContext"), bad.getMessage());
    VteException spec =
        failure(
            TransferEngine.create(
                vertx, new EngineOptions().setDevices(List.of("d0@127.0.0.1:x"))));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, spec.code());
    assertTrue(spec.getMessage().contains("d0@127.0.0.1:x"), spec.getMessage());
    VteException ibv =
        failure(
            TransferEngine.create(
                vertx, new EngineOptions().setTransport("ibverbs").setDevices(List.of("mlx5_0"))));
    assertEquals(ErrorCode.DEVICE_UNAVAILABLE, ibv.code());
    assertTrue(ibv.getMessage().contains("soft"), "suggests soft verbs: " + ibv.getMessage());
  }

  @Test
  void registrationRejectsHeapBuffersAndOverlaps() {
    TransferEngineImpl a = fx.start(2, 1);
    assertEquals(
        ErrorCode.INVALID_ARGUMENT, failure(a.register(ByteBuffer.allocate(64), "heap")).code());
    ByteBuffer direct = ByteBuffer.allocateDirect(8192);
    RegisteredBuffer whole = Await.result(a.register(direct, "cpu:0"), WAIT);
    assertEquals(8192, whole.length());
    VteException overlap = failure(a.register(whole.address() + 4096, 4096, "again"));
    assertEquals(ErrorCode.OVERLAPPING_REGISTRATION, overlap.code());
    Await.result(a.unregister(whole), WAIT);
    assertFalse(whole.isRegistered());
    assertEquals(ErrorCode.NOT_REGISTERED, failure(a.unregister(whole)).code());
    Await.result(a.register(direct, "cpu:0"), WAIT);
  }

  @Test
  void badTransfersAreTypedAndUnknownSegmentsFail() {
    TransferEngineImpl a = fx.start(2, 1);
    TransferEngineImpl b = fx.start(2, 1);
    RegisteredBuffer local = fx.register(a, 4096, 1);
    RegisteredBuffer remote = fx.register(b, 4096, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    TransferOptions o = new TransferOptions();
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        failure(
                a.submit(List.of(TransferRequest.write(local, 0, seg, remote.address(), 0)), o)
                    .result())
            .code());
    assertEquals(
        ErrorCode.NOT_REGISTERED,
        failure(
                a.submit(List.of(TransferRequest.write(remote, 0, seg, remote.address(), 1)), o)
                    .result())
            .code());
    assertEquals(
        ErrorCode.OUT_OF_RANGE,
        failure(
                a.submit(List.of(TransferRequest.write(local, 4000, seg, remote.address(), 100)), o)
                    .result())
            .code());
    VteException out =
        failure(
            a.submit(List.of(TransferRequest.write(local, 0, seg, remote.address() + 4000, 100)), o)
                .result());
    assertEquals(ErrorCode.OUT_OF_RANGE, out.code());
    assertTrue(
        out.getMessage().contains(Long.toHexString(remote.address() + 4000)), out.getMessage());
    VteException unknown = failure(a.openSegment("127.0.0.1:1"));
    assertTrue(
        unknown.code() == ErrorCode.PEER_UNREACHABLE
            || unknown.code() == ErrorCode.SEGMENT_NOT_FOUND,
        unknown.toString());
    assertEquals(ErrorCode.INVALID_ARGUMENT, failure(a.openSegment(" ")).code());
    assertEquals(0, EngineInternals.counters(a).slices(), "nothing was sent");
  }

  @Test
  void afterUnregisterThePeerRefusesAccessAndItsMemoryIsUntouched() {
    TransferEngineImpl a = fx.start(2, 1);
    TransferEngineImpl b = fx.start(2, 1);
    RegisteredBuffer local = fx.register(a, 65536, 1);
    RegisteredBuffer remote = fx.register(b, 65536, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    assertTrue(
        Await.result(
                a.submit(
                        List.of(TransferRequest.read(local, 0, seg, remote.address(), 65536)),
                        new TransferOptions())
                    .result(),
                WAIT)
            .allCompleted());
    Await.result(b.unregister(remote), WAIT);
    EngineFixture.fill(local.address(), 65536, 9);
    RequestResult r =
        Await.result(
                a.submit(
                        List.of(TransferRequest.write(local, 0, seg, remote.address(), 65536)),
                        new TransferOptions())
                    .result(),
                WAIT)
            .requests()
            .get(0);
    assertEquals(ErrorCode.REMOTE_ACCESS_DENIED, r.cause().code(), r.toString());
    assertTrue(
        EngineFixture.mismatch(local.address(), remote.address(), 65536) >= 0,
        "nothing was written");
  }

  @Test
  void batchIdApiMovesData() {
    TransferEngineImpl a = fx.start(2, 2);
    TransferEngineImpl b = fx.start(2, 2);
    RegisteredBuffer local = fx.register(a, 1 << 20, 1);
    RegisteredBuffer remote = fx.register(b, 1 << 20, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    long id = a.allocateBatch(2);
    Await.result(
        a.submit(
            id,
            List.of(
                TransferRequest.write(local, 0, seg, remote.address(), 1 << 19),
                TransferRequest.write(local, 1 << 19, seg, remote.address() + (1 << 19), 1 << 19))),
        WAIT);
    Await.untilEquals("batch done", WAIT, TaskState.COMPLETED, () -> a.batchStatus(id));
    assertEquals(1 << 19, a.status(id, 1).bytes());
    a.freeBatch(id);
    assertEquals(-1, EngineFixture.mismatch(local.address(), remote.address(), 1 << 20));
  }

  @Test
  void notificationsArriveInOrder() {
    TransferEngineImpl a = fx.start(1, 1);
    TransferEngineImpl b = fx.start(1, 1);
    List<Notification> got = new CopyOnWriteArrayList<>();
    b.notificationHandler(got::add);
    for (int i = 0; i < 100; i++) {
      a.notify(b.serverName(), "kv", Buffer.buffer("n" + i));
    }
    Await.untilEquals("100 notifications", WAIT, 100, got::size);
    for (int i = 0; i < 100; i++) {
      assertEquals("n" + i, got.get(i).payload().toString());
      assertEquals(a.serverName(), got.get(i).from());
      assertEquals(i + 1, got.get(i).sequence());
    }
    assertEquals(
        ErrorCode.INVALID_ARGUMENT,
        failure(a.notify(b.serverName(), "big", Buffer.buffer(new byte[64 * 1024 + 1]))).code());
  }

  @Test
  void notificationsSurviveARestartOfEitherEnd() {
    // A 60 s gap timeout: were a restarted end to wait for a gap, nothing would arrive within the
    // wait.
    EngineOptions senderOptions =
        EngineFixture.options("ns", 1, 1).setHandshakeDeadline(Duration.ofSeconds(60));
    EngineOptions receiverOptions =
        EngineFixture.options("nr", 1, 1).setHandshakeDeadline(Duration.ofSeconds(60));
    TransferEngineImpl a = fx.start(senderOptions);
    TransferEngineImpl b = fx.start(receiverOptions);
    List<Notification> got = new CopyOnWriteArrayList<>();
    b.notificationHandler(got::add);
    for (int i = 0; i < 3; i++) {
      Await.result(a.notify(b.serverName(), "kv", Buffer.buffer("old" + i)), WAIT);
    }
    TransferEngineImpl a2 = restart(a, senderOptions);
    Await.result(a2.notify(b.serverName(), "kv", Buffer.buffer("after sender restart")), WAIT);
    Await.untilEquals("the restarted sender is heard", WAIT, 4, got::size);
    assertEquals(1, got.get(3).sequence());

    TransferEngineImpl b2 = restart(b, receiverOptions);
    List<Notification> got2 = new CopyOnWriteArrayList<>();
    b2.notificationHandler(got2::add);
    Await.result(a2.notify(b2.serverName(), "kv", Buffer.buffer("after receiver restart")), WAIT);
    Await.untilEquals(
        "the restarted receiver hears the sender's count", Duration.ofSeconds(20), 1, got2::size);
    assertEquals("after receiver restart", got2.get(0).payload().toString());
    assertEquals(2, got2.get(0).sequence());
  }

  /**
   * Closes {@code engine} and starts another on the same RPC port, so with the same server name.
   */
  private TransferEngineImpl restart(TransferEngineImpl engine, EngineOptions options) {
    String name = engine.serverName();
    Await.result(engine.close(), WAIT);
    TransferEngineImpl again =
        fx.start(options.setRpcPort(Integer.parseInt(name.substring(name.lastIndexOf(':') + 1))));
    assertEquals(name, again.serverName());
    return again;
  }

  @Test
  void closedEngineRefusesWork() {
    TransferEngineImpl a = fx.start(1, 1);
    TransferEngineImpl b = fx.start(1, 1);
    RegisteredBuffer local = fx.register(a, 4096, 1);
    fx.register(b, 4096, 2);
    SegmentHandle seg = Await.result(a.openSegment(b.serverName()), WAIT);
    Await.result(a.close(), WAIT);
    assertEquals(
        ErrorCode.ENGINE_CLOSED,
        failure(
                a.submit(
                        List.of(
                            TransferRequest.write(
                                local, 0, seg, seg.buffers().get(0).address(), 1)),
                        new TransferOptions())
                    .result())
            .code());
    assertEquals(ErrorCode.ENGINE_CLOSED, failure(a.register(fx.allocate(64), 64, "x")).code());
    assertEquals(ErrorCode.ENGINE_CLOSED, failure(a.openSegment(b.serverName())).code());
    assertEquals(
        ErrorCode.ENGINE_CLOSED, assertThrows(VteException.class, () -> a.allocateBatch(1)).code());
  }
}
