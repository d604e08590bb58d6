package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferBatch;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A VTE engine reaching Mooncake nodes through its own API ({@code openSegment}, {@code submit},
 * {@code notify}), the Mooncake transport plugged in with {@code MooncakeTransportProvider}: WRITE
 * and READ verified against Mooncake's real bench target and a notification it logs; deadline,
 * cancel, a node's refusal and protocol 1 against VTE's own Mooncake target or a silent fake node.
 */
@ExtendWith(BlockedThreadGuard.class)
class MooncakeEngineTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");
  private static final int SIZE = 8 << 20;

  private Vertx vertx;
  private TransferEngine engine;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private MooncakeProcess mooncakeProcess;

  @BeforeAll
  static void warmUp() {
    NettyWarmUp.once();
  }

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
    engine =
        Await.result(
            TransferEngine.create(
                vertx,
                new EngineOptions()
                    .setDevices(List.of("mc0@127.0.0.1"))
                    .setRpcHost("127.0.0.1")
                    .setRetryCount(1)),
            WAIT);
  }

  @AfterEach
  void stop() throws Exception {
    Await.result(engine.close(), WAIT);
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    Await.result(vertx.close(), WAIT);
  }

  /** Mooncake's bench target (a real Mooncake node), opened through the engine by its name. */
  private SegmentHandle mooncakeNode(String binary) throws Exception {
    MooncakeBinaries.home();
    mooncakeProcess =
        MooncakeProcess.start(
            binary,
            Map.of(),
            "--mode=target",
            "--protocol=tcp",
            "--metadata_server=P2PHANDSHAKE",
            "--local_server_name=127.0.0.1",
            "--buffer_size=" + SIZE);
    closeables.add(mooncakeProcess);
    var m = mooncakeProcess.awaitLine(LISTENING, WAIT);
    String name = "mooncake://" + m.group(1) + ":" + m.group(2);
    // The listener comes up before the buffers are registered: wait for a descriptor with them.
    return Await.value(
        "a descriptor with buffers from " + name,
        WAIT,
        () -> {
          try {
            return Await.result(engine.openSegment(name), WAIT);
          } catch (AssertionError | VteException e) {
            return null;
          }
        },
        s -> s != null && !s.buffers().isEmpty());
  }

  private MooncakeTarget vteNode(MooncakeOptions options, RegisteredBuffer exposed) {
    MooncakeTarget t = Await.result(MooncakeTarget.start(vertx, options), WAIT);
    closeables.add(() -> Await.result(t.close(), WAIT));
    t.expose(exposed);
    return t;
  }

  private RegisteredBuffer allocate(int size) {
    return Await.result(engine.allocate(size, "cpu:0"), WAIT);
  }

  private static void fill(RegisteredBuffer b, int seed) {
    ByteBuffer bytes = b.byteBuffer();
    for (int i = 0; i < b.length(); i++) {
      bytes.put(i, TestMemory.pattern(seed, i));
    }
  }

  private static int mismatch(RegisteredBuffer b, int seed) {
    ByteBuffer bytes = b.byteBuffer();
    for (int i = 0; i < b.length(); i++) {
      if (bytes.get(i) != TestMemory.pattern(seed, i)) {
        return i;
      }
    }
    return -1;
  }

  private BatchResult run(List<TransferRequest> requests, Duration deadline) {
    return Await.result(
        engine.submit(requests, new TransferOptions().setDeadline(deadline)).result(), WAIT);
  }

  /** WRITEs {@code size} seeded bytes to the segment's first buffer in blocks. */
  private void write(SegmentHandle segment, int size, int block, int seed) {
    RegisteredBuffer local = allocate(size);
    fill(local, seed);
    long remote = segment.buffers().get(0).address();
    List<TransferRequest> writes = new ArrayList<>();
    for (int off = 0; off < size; off += block) {
      writes.add(TransferRequest.write(local, off, segment, remote + off, block));
    }
    BatchResult w = run(writes, Duration.ofSeconds(30));
    assertTrue(w.allCompleted(), w.toString());
  }

  /** READs {@code size} bytes of the segment's first buffer back in blocks and compares. */
  private void readBack(SegmentHandle segment, int size, int block, int seed) {
    RegisteredBuffer back = allocate(size);
    long remote = segment.buffers().get(0).address();
    List<TransferRequest> reads = new ArrayList<>();
    for (int off = 0; off < size; off += block) {
      reads.add(TransferRequest.read(back, off, segment, remote + off, block));
    }
    BatchResult r = run(reads, Duration.ofSeconds(30));
    assertTrue(r.allCompleted(), r.toString());
    assertEquals(-1, mismatch(back, seed), "bytes read back differ from those written");
  }

  @Test
  void engineWritesAndReadsAMooncakeNodeUnderProtocolTwo() throws Exception {
    SegmentHandle node = mooncakeNode("transfer_engine_bench");
    assertEquals("mooncake-tcp-v2", node.devices().get(0).name(), node.devices().toString());
    write(node, 4 << 20, 4 << 20, 11);
    readBack(node, 4 << 20, 4 << 20, 11);
    write(node, 4 << 20, 64 << 10, 12);
    readBack(node, 4 << 20, 64 << 10, 12);
  }

  @Test
  void engineNotifiesAMooncakeNodeAndRefusesARangeOutsideItsBuffers() throws Exception {
    SegmentHandle node = mooncakeNode("transfer_engine_bench_with_notify");
    Await.result(
        engine.notify(node.name(), "vte-engine", Buffer.buffer("kv-block-42-ready")), WAIT);
    // The notify bench's target logs name + notify_msg of each notification it collects.
    mooncakeProcess.awaitLine(Pattern.compile("vte-enginekv-block-42-ready"), WAIT);

    SegmentBuffer b = node.buffers().get(0);
    RegisteredBuffer local = allocate(8192);
    TransferBatch past =
        engine.submit(
            List.of(TransferRequest.write(local, 0, node, b.address() + b.length() - 4096, 8192)),
            new TransferOptions().setDeadline(Duration.ofSeconds(10)));
    VteException e = (VteException) Await.failure(past.result(), WAIT);
    assertEquals(ErrorCode.OUT_OF_RANGE, e.code(), e.getMessage());
    assertTrue(e.getMessage().contains(node.name()), e.getMessage());
  }

  @Test
  void protocolOneNodeIsShownAsUnacknowledgedAndStillCarriesVerifiedBytes() {
    RegisteredBuffer exposed = allocate(1 << 20);
    MooncakeTarget node = vteNode(new MooncakeOptions().setAdvertisedProtocolVersion(1), exposed);
    SegmentHandle s = Await.result(engine.openSegment("mooncake://" + node.serverName()), WAIT);
    assertEquals("mooncake-tcp-v1", s.devices().get(0).name());
    write(s, 1 << 20, 64 << 10, 13);
    // A completed v1 WRITE has left this process, not necessarily landed: a READ on another lane
    // could overtake it. Wait for the node's memory instead.
    Await.until("the unacknowledged WRITEs land", WAIT, () -> mismatch(exposed, 13) == -1);
    readBack(s, 1 << 20, 64 << 10, 13);
  }

  @Test
  void engineOpensANodeFromMooncakesEtcdKeys() {
    RegisteredBuffer exposed = allocate(1 << 20);
    MooncakeTarget node = vteNode(new MooncakeOptions(), exposed);
    try (EtcdServer etcd = EtcdServer.start()) {
      MooncakeEtcd keys = new MooncakeEtcd(vertx, etcd.endpoint());
      Await.result(keys.publish("prefill-0", node), WAIT);
      Await.result(keys.close(), WAIT);
      String name = "mooncake+etcd://" + etcd.hostPort() + "/prefill-0";
      SegmentHandle s = Await.result(engine.openSegment(name), WAIT);
      assertEquals(node.serverName(), s.serverName(), "from mooncake/rpc_meta/prefill-0");
      write(s, 1 << 20, 256 << 10, 14);
      assertEquals(-1, mismatch(exposed, 14), "the node's memory holds what the engine wrote");
      readBack(s, 1 << 20, 256 << 10, 14);
    }
  }

  @Test
  void aNodeRefusingAWithdrawnBufferFailsTheRequestRemoteAccessDenied() {
    RegisteredBuffer exposed = allocate(1 << 20);
    MooncakeTarget node = vteNode(new MooncakeOptions(), exposed);
    SegmentHandle s = Await.result(engine.openSegment("mooncake://" + node.serverName()), WAIT);
    node.withdraw(exposed);
    RegisteredBuffer local = allocate(4096);
    RequestResult r =
        run(List.of(TransferRequest.write(local, 0, s, exposed.address(), 4096)), WAIT)
            .requests()
            .get(0);
    assertEquals(RequestStatus.FAILED, r.status());
    assertEquals(ErrorCode.REMOTE_ACCESS_DENIED, r.cause().code(), r.cause().getMessage());
  }

  /**
   * A Mooncake node whose handshake listener describes one buffer at 1 MiB and whose data listener
   * accepts connections and never answers; {@code accepted} receives its data connections.
   */
  private SegmentHandle silentNode(List<NetSocket> accepted) {
    NetServer data =
        vertx
            .createNetServer()
            .connectHandler(
                so -> {
                  accepted.add(so);
                  so.handler(b -> {});
                });
    Await.result(data.listen(0, "127.0.0.1"), WAIT);
    SegmentDescriptor d =
        new SegmentDescriptor(
            "silent",
            data.actualPort(),
            2,
            List.of(new SegmentBuffer("cpu:0", 1L << 20, 1L << 20, List.of())));
    NetServer handshake =
        vertx
            .createNetServer()
            .connectHandler(
                so -> {
                  HandshakeFrame.Reader reader =
                      new HandshakeFrame.Reader(HandshakeFrame.DEFAULT_MAX_LENGTH);
                  so.handler(
                      b -> {
                        HandshakeFrame f = reader.append(b);
                        if (f != null) {
                          so.write(new HandshakeFrame(f.type(), d.toJson()).encode());
                        }
                      });
                });
    Await.result(handshake.listen(0, "127.0.0.1"), WAIT);
    closeables.add(() -> Await.result(Future.join(data.close(), handshake.close()), WAIT));
    return Await.result(engine.openSegment("mooncake://127.0.0.1:" + handshake.actualPort()), WAIT);
  }

  @Test
  void deadlinePassesOnASilentMooncakeNode() {
    List<NetSocket> accepted = new CopyOnWriteArrayList<>();
    SegmentHandle s = silentNode(accepted);
    RegisteredBuffer local = allocate(4096);
    long t0 = System.nanoTime();
    RequestResult r =
        run(List.of(TransferRequest.read(local, 0, s, 1L << 20, 4096)), Duration.ofMillis(300))
            .requests()
            .get(0);
    assertEquals(RequestStatus.TIMED_OUT, r.status(), String.valueOf(r.cause()));
    assertEquals(ErrorCode.TIMED_OUT, r.cause().code());
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10));
    assertTrue(!accepted.isEmpty(), "the READ reached the node's data listener");
  }

  @Test
  void cancelEndsEveryRequestOnASilentMooncakeNode() {
    SegmentHandle s = silentNode(new CopyOnWriteArrayList<>());
    RegisteredBuffer local = allocate(64 << 10);
    List<TransferRequest> reads = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      reads.add(TransferRequest.read(local, i * 4096L, s, (1L << 20) + i * 4096L, 4096));
    }
    TransferBatch batch = engine.submit(reads, new TransferOptions());
    batch.cancel();
    BatchResult r = Await.result(batch.result(), WAIT);
    for (RequestResult one : r.requests()) {
      assertEquals(RequestStatus.CANCELED, one.status());
      assertEquals(ErrorCode.CANCELED, one.cause().code());
    }
  }

  @Test
  void badMooncakeSegmentNamesAreInvalidArguments() {
    for (String name : List.of("mooncake+etcd://127.0.0.1:2379", "mooncake+etcd://h:1/")) {
      VteException e = (VteException) Await.failure(engine.openSegment(name), WAIT);
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains(name), e.getMessage());
    }
  }
}
