package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.Notification;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentBuffer;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * VTE against Mooncake's own binaries, built from the source snapshot ({@link MooncakeBinaries}):
 * Mooncake's validator and benches as initiators against a VTE target, VTE as initiator against a
 * Mooncake bench target; protocol versions 1 and 2; notifications both ways; out-of-bounds requests
 * refused on both sides. Every process started here is killed in {@code finally}.
 */
@ExtendWith(BlockedThreadGuard.class)
class MooncakeInteropTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final Pattern LISTENING = Pattern.compile("listening on (\\S+):(\\d+)");
  private static final int SIZE = 16 << 20;

  private Vertx vertx;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final LinkedBlockingQueue<VteException> refusals = new LinkedBlockingQueue<>();
  private MooncakeProcess benchTarget;

  @BeforeAll
  static void build() throws Exception {
    MooncakeBinaries.home();
    NettyWarmUp.once();
  }

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    Await.result(vertx.close(), WAIT);
  }

  private <T extends AutoCloseable> T closeLater(T c) {
    closeables.add(c);
    return c;
  }

  private TestMemory memory(int size) {
    return closeLater(new TestMemory(size, "cpu:0"));
  }

  private MooncakeTarget vteTarget(TestMemory exposed) {
    MooncakeTarget t = Await.result(MooncakeTarget.start(vertx, new MooncakeOptions()), WAIT);
    closeables.add(() -> Await.result(t.close(), WAIT));
    return t.expose(exposed).refusalHandler(refusals::add);
  }

  private MooncakeProcess mooncake(String binary, Map<String, String> env, String... args)
      throws Exception {
    return closeLater(MooncakeProcess.start(binary, env, args));
  }

  private static String[] initiatorArgs(String segment, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--mode=initiator",
                "--protocol=tcp",
                "--metadata_server=P2PHANDSHAKE",
                "--local_server_name=127.0.0.1",
                "--segment_id=" + segment));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  /** Mooncake's validator writes a seeded pattern into the VTE target, reads it back, compares. */
  private void validatorAgainstVteTarget(Map<String, String> env) throws Exception {
    TestMemory exposed = memory(SIZE);
    MooncakeTarget target = vteTarget(exposed);
    MooncakeProcess validator =
        mooncake(
            "transfer_engine_validator",
            env,
            initiatorArgs(
                target.serverName(),
                "--duration=3",
                "--threads=2",
                "--batch_size=16",
                "--block_size=65536",
                "--buffer_size=4194304"));
    assertEquals(0, validator.awaitExit(WAIT), validator.output());
    validator.awaitLine(Pattern.compile("Data validation passed"), WAIT);
    byte seed = exposed.get(0);
    for (int i = 0; i < 65536; i++) {
      assertEquals(seed, exposed.get(i), "the validator's seeded block in VTE memory, byte " + i);
    }
    assertTrue(exposed.guardsIntact());
    assertTrue(refusals.isEmpty(), refusals.toString());
  }

  @Test
  void validatorAgainstVteTargetProtocolTwo() throws Exception {
    validatorAgainstVteTarget(Map.of());
  }

  @Test
  void validatorAgainstVteTargetProtocolOne() throws Exception {
    validatorAgainstVteTarget(Map.of("MC_TCP_PROTO", "1"));
  }

  @Test
  void validatorWithMooncakesConnectionPoolAgainstVteTarget() throws Exception {
    validatorAgainstVteTarget(Map.of("MC_TCP_ENABLE_CONNECTION_POOL", "1"));
  }

  /** A Mooncake bench target and a VTE transport with the segment opened over P2P. */
  private MooncakeSegment benchTarget(String binary, MooncakeTransport transport) throws Exception {
    benchTarget =
        mooncake(
            binary,
            Map.of(),
            "--mode=target",
            "--protocol=tcp",
            "--metadata_server=P2PHANDSHAKE",
            "--local_server_name=127.0.0.1",
            "--buffer_size=" + SIZE);
    var m = benchTarget.awaitLine(LISTENING, WAIT);
    String server = m.group(1) + ":" + m.group(2);
    // The listener comes up before the buffers are registered: wait for a descriptor with them.
    return Await.value(
        "a descriptor with buffers from " + server,
        WAIT,
        () -> {
          try {
            return Await.result(transport.openSegment(server), WAIT);
          } catch (AssertionError | VteException e) {
            return null; // not listening yet
          }
        },
        s -> s != null && !s.buffers().isEmpty());
  }

  private MooncakeTransport transport(MooncakeOptions options) {
    MooncakeTransport t = MooncakeTransport.create(vertx, options);
    closeables.add(() -> Await.result(t.close(), WAIT));
    return t;
  }

  private void vteAgainstBenchTarget(MooncakeOptions options, int expectedVersion)
      throws Exception {
    MooncakeTransport transport = transport(options);
    MooncakeSegment segment = benchTarget("transfer_engine_bench", transport);
    assertEquals(expectedVersion, segment.protocolVersion());
    SegmentBuffer remote = segment.buffers().get(0);
    TestMemory local = memory(SIZE);
    TestMemory back = memory(SIZE);
    for (int block : new int[] {4 << 20, 64 << 10}) {
      int seed = block;
      local.fill(seed);
      List<TransferRequest> writes = new ArrayList<>();
      List<TransferRequest> reads = new ArrayList<>();
      for (int off = 0; off < SIZE; off += block) {
        writes.add(TransferRequest.write(local, off, segment, remote.address() + off, block));
        reads.add(TransferRequest.read(back, off, segment, remote.address() + off, block));
      }
      BatchResult w = run(transport, writes);
      assertTrue(w.allCompleted(), w.toString());
      BatchResult r = run(transport, reads);
      assertTrue(r.allCompleted(), r.toString());
      assertEquals(-1, back.mismatch(seed, 0, SIZE, 0), "read back from Mooncake differs");
      assertTrue(back.guardsIntact());
    }
  }

  private static BatchResult run(MooncakeTransport t, List<TransferRequest> requests) {
    return Await.result(
        t.submit(requests, new TransferOptions().setDeadline(Duration.ofSeconds(30))).result(),
        WAIT);
  }

  @Test
  void vteAgainstMooncakeBenchTargetProtocolTwo() throws Exception {
    vteAgainstBenchTarget(new MooncakeOptions(), 2);
  }

  @Test
  void vteAgainstMooncakeBenchTargetProtocolOne() throws Exception {
    vteAgainstBenchTarget(new MooncakeOptions().setForceProtocolV1(true), 1);
  }

  @Test
  void notificationFromVteReachesMooncake() throws Exception {
    MooncakeTransport transport = transport(new MooncakeOptions());
    MooncakeSegment segment = benchTarget("transfer_engine_bench_with_notify", transport);
    Await.result(transport.notify(segment, "vte-node", "kv-ready-42"), WAIT);
    // The notify bench's target logs name + notify_msg of each notification it collects.
    benchTarget.awaitLine(Pattern.compile("vte-nodekv-ready-42"), WAIT);
  }

  /**
   * One of Mooncake's benches WRITing 4 blocks per batch, one thread, for 2 s, into {@code target}.
   */
  private MooncakeProcess benchWriting(String binary, MooncakeTarget target, int block)
      throws Exception {
    return mooncake(
        binary,
        Map.of(),
        initiatorArgs(
            target.serverName(),
            "--operation=write",
            "--duration=2",
            "--threads=1",
            "--batch_size=4",
            "--block_size=" + block,
            "--buffer_size=1048576"));
  }

  @Test
  void notificationFromMooncakeReachesVte() throws Exception {
    TestMemory exposed = memory(SIZE);
    MooncakeTarget target = vteTarget(exposed);
    LinkedBlockingQueue<Notification> got = new LinkedBlockingQueue<>();
    target.notificationHandler(got::add);
    benchWriting("transfer_engine_bench_with_notify", target, 4096);
    Notification n = got.poll(60, TimeUnit.SECONDS);
    assertNotNull(n, "no notification from Mooncake");
    assertEquals("agent1", n.topic());
    assertTrue(n.payload().toString().startsWith("notification"), n.payload().toString());
  }

  @Test
  void outOfBoundsMooncakeWriteIsRefusedByVte() throws Exception {
    // The bench writes 4 blocks of 64 KiB from the buffer's start: only the first two fit.
    TestMemory exposed = memory(128 << 10);
    exposed.fill(9);
    MooncakeTarget target = vteTarget(exposed);
    MooncakeProcess bench = benchWriting("transfer_engine_bench", target, 65536);
    assertNotEquals(0, bench.awaitExit(WAIT), "Mooncake's bench must see its WRITE fail");
    VteException e = refusals.poll(10, TimeUnit.SECONDS);
    assertNotNull(e, "VTE reported no refusal");
    assertEquals(ErrorCode.OUT_OF_RANGE, e.code(), e.getMessage());
    assertTrue(exposed.guardsIntact(), "a byte outside the exposed buffer changed");
  }

  @Test
  void outOfBoundsVteRequestIsRefusedByMooncake() throws Exception {
    MooncakeTransport transport = transport(new MooncakeOptions());
    MooncakeSegment real = benchTarget("transfer_engine_bench", transport);
    SegmentBuffer b = real.buffers().get(0);
    // A descriptor claiming one more MiB than Mooncake registered, so the request reaches it.
    SegmentDescriptor d = real.descriptor();
    SegmentDescriptor stretched =
        new SegmentDescriptor(
            d.name(),
            d.tcpDataPort(),
            d.protocolVersion(),
            List.of(
                new SegmentBuffer(b.location(), b.address(), b.length() + (1 << 20), List.of())));
    TestMemory local = memory(1 << 20);
    long past = b.address() + b.length();
    MooncakeSegment v2 = new MooncakeSegment(transport, stretched, real.rpc(), 2);
    RequestResult w =
        run(transport, List.of(TransferRequest.write(local, 0, v2, past, 4096))).requests().get(0);
    assertEquals(RequestStatus.FAILED, w.status());
    assertEquals(ErrorCode.REMOTE_ACCESS_DENIED, w.cause().code(), w.cause().getMessage());
    MooncakeSegment v1 = new MooncakeSegment(transport, stretched, real.rpc(), 1);
    RequestResult r =
        run(transport, List.of(TransferRequest.read(local, 0, v1, past, 4096))).requests().get(0);
    assertEquals(RequestStatus.FAILED, r.status());
    assertEquals(ErrorCode.TRANSFER_FAILED, r.cause().code(), r.cause().getMessage());
    assertTrue(local.guardsIntact());
  }
}
