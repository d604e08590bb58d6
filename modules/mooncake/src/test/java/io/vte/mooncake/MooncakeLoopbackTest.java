package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentBuffer;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * VTE initiator against VTE target over Mooncake's protocol, and the initiator against hand-made
 * hostile targets: data verified both ways, both framings, lanes reused, deadlines, cancel, typed
 * failures, notifications, and no byte written outside the requested local range.
 */
@ExtendWith(BlockedThreadGuard.class)
class MooncakeLoopbackTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int SIZE = 4 << 20;

  private Vertx vertx;
  private TestMemory remote;
  private TestMemory local;
  private TestMemory back;
  private MooncakeTarget target;
  private MooncakeTransport transport;
  private final List<NetServer> fakes = new ArrayList<>();

  @BeforeAll
  static void warmUp() {
    NettyWarmUp.once();
  }

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    remote = new TestMemory(SIZE, "cpu:0");
    local = new TestMemory(SIZE, "cpu:0");
    back = new TestMemory(SIZE, "cpu:0");
  }

  @AfterEach
  void stop() {
    if (transport != null) {
      Await.result(transport.close(), WAIT);
    }
    if (target != null) {
      Await.result(target.close(), WAIT);
    }
    for (NetServer s : fakes) {
      Await.result(s.close(), WAIT);
    }
    Await.result(vertx.close(), WAIT);
    remote.close();
    local.close();
    back.close();
  }

  private MooncakeSegment open(MooncakeOptions targetOptions, MooncakeOptions initiatorOptions) {
    target = Await.result(MooncakeTarget.start(vertx, targetOptions), WAIT);
    target.expose(remote);
    transport = MooncakeTransport.create(vertx, initiatorOptions);
    return Await.result(transport.openSegment(target.serverName()), WAIT);
  }

  private static BatchResult run(
      MooncakeTransport t, List<TransferRequest> requests, Duration deadline) {
    return Await.result(
        t.submit(requests, new TransferOptions().setDeadline(deadline)).result(), WAIT);
  }

  /** WRITEs {@code local} (seeded) in blocks, READs it back into {@code back}, compares. */
  private void writeAndReadBack(MooncakeSegment segment, int block) {
    local.fill(7);
    List<TransferRequest> writes = new ArrayList<>();
    List<TransferRequest> reads = new ArrayList<>();
    for (int off = 0; off < SIZE; off += block) {
      writes.add(TransferRequest.write(local, off, segment, remote.address() + off, block));
      reads.add(TransferRequest.read(back, off, segment, remote.address() + off, block));
    }
    BatchResult w = run(transport, writes, Duration.ofSeconds(15));
    assertTrue(w.allCompleted(), () -> "writes: " + w);
    assertEquals(SIZE, w.bytes());
    assertEquals(-1, remote.mismatch(7, 0, SIZE, 0), "the target's memory differs");
    BatchResult r = run(transport, reads, Duration.ofSeconds(15));
    assertTrue(r.allCompleted(), () -> "reads: " + r);
    assertEquals(-1, back.mismatch(7, 0, SIZE, 0), "read back differs");
    assertTrue(remote.guardsIntact() && back.guardsIntact() && local.guardsIntact());
  }

  @Test
  void writeAndReadBackUnderProtocolTwoInSlicesOverReusedLanes() {
    MooncakeSegment s =
        open(
            new MooncakeOptions(),
            new MooncakeOptions().setSliceBytes(128 << 10).setLanesPerPeer(3));
    assertEquals(2, s.protocolVersion());
    assertTrue(s.acknowledgedWrites());
    writeAndReadBack(s, 1 << 20);
    writeAndReadBack(s, 64 << 10);
    assertTrue(
        target.dataConnectionsAccepted() <= 3,
        "lanes not reused: " + target.dataConnectionsAccepted() + " connections");
  }

  @Test
  void protocolOneWhenTheTargetAdvertisesOnlyIt() {
    MooncakeSegment s =
        open(new MooncakeOptions().setAdvertisedProtocolVersion(1), new MooncakeOptions());
    assertEquals(1, s.protocolVersion());
    assertFalse(s.acknowledgedWrites(), "a v1 WRITE has no acknowledgement");
    writeAndReadBack(s, 256 << 10);
  }

  @Test
  void protocolOneWhenForced() {
    MooncakeSegment s = open(new MooncakeOptions(), new MooncakeOptions().setForceProtocolV1(true));
    assertEquals(1, s.protocolVersion());
    writeAndReadBack(s, 1 << 20);
  }

  @Test
  void badRequestsFailBeforeAnythingIsSent() {
    MooncakeSegment s = open(new MooncakeOptions(), new MooncakeOptions());
    assertCode(
        ErrorCode.OUT_OF_RANGE,
        TransferRequest.write(local, 0, s, remote.address() + SIZE - 10, 11));
    assertCode(
        ErrorCode.OUT_OF_RANGE, TransferRequest.read(local, SIZE - 1, s, remote.address(), 2));
    MooncakeSegment foreign =
        new MooncakeSegment(null, s.descriptor(), HostPort.parse(s.serverName()), 2);
    assertCode(
        ErrorCode.INVALID_ARGUMENT, TransferRequest.write(local, 0, foreign, remote.address(), 1));
    assertEquals(0, target.dataConnectionsAccepted());
  }

  private void assertCode(ErrorCode code, TransferRequest r) {
    Throwable e = Await.failure(transport.submit(List.of(r), new TransferOptions()).result(), WAIT);
    assertEquals(code, ((VteException) e).code(), e.toString());
  }

  @Test
  void staleDescriptorIsRefusedByTheTargetUnderBothFramings() {
    MooncakeSegment s = open(new MooncakeOptions(), new MooncakeOptions());
    LinkedBlockingQueue<VteException> refusals = new LinkedBlockingQueue<>();
    target.refusalHandler(refusals::add);
    target.withdraw(remote);
    RequestResult v2 =
        run(transport, List.of(TransferRequest.write(local, 0, s, remote.address(), 4096)), WAIT)
            .requests()
            .get(0);
    assertEquals(RequestStatus.FAILED, v2.status());
    assertEquals(ErrorCode.REMOTE_ACCESS_DENIED, v2.cause().code(), v2.cause().getMessage());
    MooncakeSegment v1 =
        new MooncakeSegment(transport, s.descriptor(), HostPort.parse(s.serverName()), 1);
    RequestResult r1 =
        run(transport, List.of(TransferRequest.read(local, 0, v1, remote.address(), 4096)), WAIT)
            .requests()
            .get(0);
    assertEquals(RequestStatus.FAILED, r1.status());
    assertEquals(ErrorCode.TRANSFER_FAILED, r1.cause().code(), r1.cause().getMessage());
    assertEquals(2, refusals.size(), refusals.toString());
  }

  @Test
  void notificationsReachTheTargetsHandler() throws Exception {
    MooncakeSegment s = open(new MooncakeOptions(), new MooncakeOptions());
    LinkedBlockingQueue<Notification> got = new LinkedBlockingQueue<>();
    target.notificationHandler(got::add);
    Await.result(transport.notify(s, "agent1", "kv block 42 ready"), WAIT);
    Notification n = got.poll(10, TimeUnit.SECONDS);
    assertEquals("agent1", n.topic());
    assertEquals("kv block 42 ready", n.payload().toString());
  }

  /** A data listener that answers with {@code behaviour}, and a segment of this transport on it. */
  private MooncakeSegment fake(Consumer<NetSocket> behaviour, int version) {
    NetServer server = vertx.createNetServer().connectHandler(behaviour::accept);
    fakes.add(Await.result(server.listen(0, "127.0.0.1"), WAIT));
    transport = MooncakeTransport.create(vertx, new MooncakeOptions());
    SegmentDescriptor d =
        new SegmentDescriptor(
            "fake",
            server.actualPort(),
            version,
            List.of(new SegmentBuffer("cpu:0", 1L << 20, 1L << 20, List.of())));
    return new MooncakeSegment(transport, d, new HostPort("127.0.0.1", 1), version);
  }

  @Test
  void deadlinePassesOnASilentTargetAndItsLaneIsClosed() {
    List<NetSocket> accepted = new CopyOnWriteArrayList<>();
    List<NetSocket> closed = new CopyOnWriteArrayList<>();
    MooncakeSegment s =
        fake(
            so -> {
              accepted.add(so);
              so.handler(b -> {});
              so.closeHandler(v -> closed.add(so));
            },
            2);
    long t0 = System.nanoTime();
    RequestResult r =
        run(
                transport,
                List.of(TransferRequest.read(local, 0, s, 1L << 20, 4096)),
                Duration.ofMillis(300))
            .requests()
            .get(0);
    assertEquals(RequestStatus.TIMED_OUT, r.status());
    assertEquals(ErrorCode.TIMED_OUT, r.cause().code());
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
    Await.until(
        "the lane closes", WAIT, () -> closed.size() == accepted.size() && !closed.isEmpty());
  }

  @Test
  void cancelEndsEveryUnfinishedRequest() {
    MooncakeSegment s = fake(so -> so.handler(b -> {}), 2);
    List<TransferRequest> reads = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      reads.add(TransferRequest.read(local, i * 4096L, s, (1L << 20) + i * 4096L, 4096));
    }
    TransferBatch batch = transport.submit(reads, new TransferOptions());
    batch.cancel();
    BatchResult r = Await.result(batch.result(), WAIT);
    for (RequestResult one : r.requests()) {
      assertEquals(RequestStatus.CANCELED, one.status());
      assertEquals(ErrorCode.CANCELED, one.cause().code());
    }
  }

  @Test
  void statusFrameWithoutMagicIsAProtocolError() {
    MooncakeSegment s = fake(so -> so.handler(b -> so.write(Buffer.buffer().appendLongLE(0))), 2);
    RequestResult r =
        run(transport, List.of(TransferRequest.read(local, 0, s, 1L << 20, 4096)), WAIT)
            .requests()
            .get(0);
    assertEquals(ErrorCode.PROTOCOL_ERROR, r.cause().code(), r.cause().getMessage());
    assertTrue(r.cause().getMessage().contains("MCTV"), r.cause().getMessage());
  }

  @Test
  void extraReadBytesNeverLandOutsideTheRequestedRange() {
    local.fill(3);
    // Answers a 100-byte v1 READ with 300 bytes of 0x11.
    MooncakeSegment s =
        fake(
            so -> so.handler(b -> so.write(Buffer.buffer(new byte[300]).setByte(0, (byte) 0x11))),
            1);
    RequestResult r =
        run(transport, List.of(TransferRequest.read(local, 1000, s, 1L << 20, 100)), WAIT)
            .requests()
            .get(0);
    assertEquals(RequestStatus.COMPLETED, r.status());
    assertEquals(0x11, local.get(1000));
    assertEquals(-1, local.mismatch(3, 1100, SIZE, 1100), "bytes past the READ changed");
    assertEquals(-1, local.mismatch(3, 0, 1000, 0), "bytes before the READ changed");
    assertTrue(local.guardsIntact());
  }

  @Test
  void targetClosingMidReadFailsTheRequest() {
    MooncakeSegment s =
        fake(
            so ->
                so.handler(
                    b ->
                        so.write(
                                Buffer.buffer()
                                    .appendLongLE(StatusFrame.OK)
                                    .appendBytes(new byte[10]))
                            .onComplete(x -> so.close())),
            2);
    RequestResult r =
        run(transport, List.of(TransferRequest.read(local, 0, s, 1L << 20, 4096)), WAIT)
            .requests()
            .get(0);
    assertEquals(ErrorCode.TRANSFER_FAILED, r.cause().code(), r.cause().getMessage());
  }

  @Test
  void unreachableTargetIsPeerUnreachable() {
    MooncakeSegment s = fake(so -> {}, 2);
    Await.result(fakes.remove(0).close(), WAIT);
    RequestResult r =
        run(transport, List.of(TransferRequest.write(local, 0, s, 1L << 20, 10)), WAIT)
            .requests()
            .get(0);
    assertEquals(ErrorCode.PEER_UNREACHABLE, r.cause().code(), r.cause().getMessage());
  }
}
