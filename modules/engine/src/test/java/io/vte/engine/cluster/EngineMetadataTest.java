package io.vte.engine.cluster;

import static io.vte.engine.cluster.EtcdEngines.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import io.vte.testkit.ResourceSnapshot;
import io.vte.verbs.DirectMemory;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Engines on etcd: logical segment names, descriptor updates reaching peers through the watch,
 * typed errors for bad metadata configuration and unknown or malformed segments, and a clean
 * failure when etcd is unreachable at start.
 */
@ExtendWith(BlockedThreadGuard.class)
class EngineMetadataTest {

  private static final int LENGTH = (1 << 20) + 333;

  private EtcdServer etcd;
  private EtcdEngines engines;

  @BeforeEach
  void start() {
    etcd = EtcdServer.start();
    engines = new EtcdEngines(etcd, "/vte/meta");
  }

  @AfterEach
  void stop() {
    engines.close();
    etcd.close();
  }

  @Test
  void bufferChangesReachAPeerThroughTheWatchWithoutReopening() {
    TransferEngineImpl a = engines.start("writer");
    TransferEngineImpl b = engines.start("store");
    RegisteredBuffer local = engines.register(a, LENGTH, 1);
    RegisteredBuffer first = engines.register(b, LENGTH, 2);
    SegmentHandle store = Await.result(a.openSegment("store"), WAIT);
    assertEquals("store", store.name());
    assertEquals(b.serverName(), store.serverName(), "the descriptor carries the RPC address");
    assertNotEquals(
        store.name(), store.serverName(), "the logical name is independent of the address");
    Await.until(
        "the first buffer is published",
        WAIT,
        () -> Await.result(a.openSegment("store"), WAIT).buffers().size() == 1);
    store = Await.result(a.openSegment("store"), WAIT);

    RegisteredBuffer second = engines.register(b, LENGTH, 3);
    Await.until(
        "the watch told a about the second buffer",
        WAIT,
        () -> Await.result(a.openSegment("store"), WAIT).buffers().size() == 2);
    // The old handle does not know the buffer: the engine refreshes it from the store's watched
    // cache.
    BatchResult write =
        Await.result(
            a.submit(
                    List.of(TransferRequest.write(local, 0, store, second.address(), LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertTrue(write.allCompleted(), write.toString());
    assertEquals(
        ClusterMemory.crc(local.address(), LENGTH),
        ClusterMemory.crc(second.address(), LENGTH),
        "the new buffer holds exactly what was written");
    assertEquals(
        ClusterMemory.expectedCrc(2, 0, LENGTH),
        ClusterMemory.crc(first.address(), LENGTH),
        "the first buffer is untouched");

    Await.result(b.unregister(second), WAIT);
    Await.until(
        "the watch told a the second buffer is gone",
        WAIT,
        () -> Await.result(a.openSegment("store"), WAIT).buffers().size() == 1);
    Throwable gone =
        Await.failure(
            a.submit(
                    List.of(TransferRequest.write(local, 0, store, second.address(), LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertCode(ErrorCode.OUT_OF_RANGE, gone);
  }

  @Test
  void unknownOrMalformedSegmentsGetTypedErrorsAndTheEngineCarriesOn() {
    TransferEngineImpl a = engines.start("asker");
    TransferEngineImpl b = engines.start("answerer");
    RegisteredBuffer local = engines.register(a, LENGTH, 1);
    RegisteredBuffer remote = engines.register(b, LENGTH, 2);

    Throwable missing = Await.failure(a.openSegment("nobody"), WAIT);
    assertCode(ErrorCode.SEGMENT_NOT_FOUND, missing);
    assertTrue(missing.getMessage().contains("nobody"), missing.getMessage());

    etcd.etcdctl("put", "/vte/meta/segments/garbage", "{not a descriptor");
    Throwable garbage = Await.failure(a.openSegment("garbage"), WAIT);
    assertCode(ErrorCode.PROTOCOL_ERROR, garbage);
    assertTrue(garbage.getMessage().contains("garbage"), garbage.getMessage());

    SegmentHandle answerer = Await.result(a.openSegment("answerer"), WAIT);
    Await.until(
        "the buffer is published",
        WAIT,
        () -> Await.result(a.openSegment("answerer"), WAIT).buffers().size() == 1);
    answerer = Await.result(a.openSegment("answerer"), WAIT);
    BatchResult read =
        Await.result(
            a.submit(
                    List.of(TransferRequest.read(local, 0, answerer, remote.address(), LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertTrue(read.allCompleted(), read.toString());
    assertEquals(
        ClusterMemory.expectedCrc(2, 0, LENGTH), ClusterMemory.crc(local.address(), LENGTH));
  }

  @Test
  void closeRemovesTheEntriesAtOnceAndLeavesNothingRunning() {
    startRegisterClose("closer");
    ResourceSnapshot before = ResourceSnapshot.take();
    startRegisterClose("closer");
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
  }

  /**
   * Starts an engine on its own Vert.x, registers memory, closes; its keys must be gone right after
   * close.
   */
  private void startRegisterClose(String name) {
    Vertx vertx = Vertx.vertx();
    try {
      TransferEngine engine =
          Await.result(TransferEngine.create(vertx, engines.options(name)), WAIT);
      long address = DirectMemory.allocate(LENGTH);
      try {
        Await.result(engine.register(address, LENGTH, "cpu:0"), WAIT);
        assertTrue(
            etcd.etcdctl("get", "/vte/meta/segments/" + name, "--keys-only").contains(name),
            "published");
        Await.result(engine.close(), WAIT);
      } finally {
        DirectMemory.free(address);
      }
      // Well before the 3 s TTL: the lease was revoked on close.
      assertEquals(
          "",
          etcd.etcdctl("get", "/vte/meta/", "--prefix", "--keys-only").trim(),
          "nothing left in etcd");
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }

  @Test
  void badMetadataConfigurationIsATypedErrorNamingTheField() {
    assertBadConfig(
        "etcd://127.0.0.1:notaport", o -> o.setMetadataUri("etcd://127.0.0.1:notaport"));
    assertBadConfig("etcd://127.0.0.1:2379,", o -> o.setMetadataUri("etcd://127.0.0.1:2379,"));
    assertBadConfig("'metadataUri'", o -> o.setMetadataUri("zk://127.0.0.1:2181"));
    assertBadConfig(
        "leaseTtl", o -> o.setMetadata(new MetadataOptions().setLeaseTtl(Duration.ofMillis(1500))));
    assertBadConfig(
        "clusterPrefix", o -> o.setMetadata(new MetadataOptions().setClusterPrefix("no-slash")));
    // an unknown key can only come from JSON: the options are read from it, so reading refuses it
    VteException unknown =
        assertThrows(
            VteException.class,
            () ->
                EngineOptions.fromJson(
                    engines
                        .options("bad")
                        .toJson()
                        .put("metadata", new JsonObject().put("leaseTtl", 3000))));
    assertCode(ErrorCode.INVALID_CONFIGURATION, unknown);
    assertTrue(
        unknown.getMessage().contains("'metadata.leaseTtl'"),
        "names 'metadata.leaseTtl': " + unknown.getMessage());
    assertBadConfig("'segmentName'", o -> o.setSegmentName("two words"));
    assertBadConfig("etcdUser", o -> o.setMetadata(new MetadataOptions().setEtcdUser("root")));
  }

  private void assertBadConfig(String named, UnaryOperator<EngineOptions> change) {
    EngineOptions options = change.apply(engines.options("bad"));
    Throwable e = failedStartLeavesNothing(options);
    assertCode(ErrorCode.INVALID_CONFIGURATION, e);
    assertTrue(e.getMessage().contains(named), "names " + named + ": " + e.getMessage());
  }

  @Test
  void unreachableEtcdAtStartFailsNamingTheEndpointsAndLeavesNothingRunning() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    long started = System.nanoTime();
    Throwable e =
        failedStartLeavesNothing(
            withStartDeadline(
                engines.options("lonely").setMetadataUri("etcd://127.0.0.1:" + port), 3000));
    System.out.println(
        "FIGURE two engine starts against an unreachable etcd failed within "
            + (System.nanoTime() - started) / 1_000_000
            + " ms");
    assertCode(ErrorCode.METADATA_UNAVAILABLE, e);
    assertTrue(
        e.getMessage().contains("127.0.0.1:" + port), "names the endpoint: " + e.getMessage());
  }

  @Test
  void etcdsAgainstAPlainTextEtcdFailsTheStartTyped() {
    Vertx vertx = Vertx.vertx();
    try {
      Throwable e =
          failureOf(
              vertx,
              withStartDeadline(
                  engines.options("tls").setMetadataUri("etcds://" + etcd.hostPort()), 3000));
      assertCode(ErrorCode.METADATA_UNAVAILABLE, e);
      assertTrue(
          e.getMessage().contains("https://" + etcd.hostPort()),
          "names the TLS endpoint: " + e.getMessage());
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }

  /**
   * etcd frozen (SIGSTOP) while an engine starts, for longer than three of its etcd call deadlines:
   * the engine waits for it within its start deadline instead of failing at the first call, starts
   * once etcd runs again, and a peer finds its segment by name.
   */
  @Test
  void anEngineStartingWhileEtcdIsPausedWaitsForItWithinTheStartDeadline() {
    long callDeadlineMs = 500;
    EngineOptions options = engines.options("patient");
    options
        .getMetadata()
        .setCallDeadline(Duration.ofMillis(callDeadlineMs))
        .setStartDeadline(Duration.ofMillis(60_000));
    Vertx vertx = Vertx.vertx();
    try {
      etcd.pause();
      long t0 = System.nanoTime();
      io.vertx.core.Future<TransferEngine> started;
      try {
        started = TransferEngine.create(vertx, options);
        Await.until(
            "three call deadlines passed with etcd paused",
            WAIT,
            () -> System.nanoTime() - t0 > 3 * callDeadlineMs * 1_000_000);
        assertFalse(
            started.isComplete(), "the start ended while etcd was paused: " + started.cause());
      } finally {
        etcd.resume();
      }
      TransferEngine patient = Await.result(started, WAIT);
      try {
        TransferEngineImpl peer = engines.start("finder");
        Await.until(
            "the peer finds the patient engine's segment by name",
            WAIT,
            () -> Await.result(peer.openSegment("patient").map(true).otherwise(false), WAIT));
        assertEquals(
            patient.serverName(), Await.result(peer.openSegment("patient"), WAIT).serverName());
      } finally {
        Await.result(patient.close(), WAIT);
      }
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }

  private static EngineOptions withStartDeadline(EngineOptions options, long startDeadlineMs) {
    options.getMetadata().setStartDeadline(Duration.ofMillis(startDeadlineMs));
    return options;
  }

  /**
   * Starts an engine that must fail, twice, each on a Vert.x instance of its own; the second
   * attempt must leave no thread or file descriptor behind (the first one may start process-wide
   * singletons such as jetcd's retry scheduler or the JDK cleaner).
   */
  private static Throwable failedStartLeavesNothing(EngineOptions options) {
    failureOnOwnVertx(options);
    ResourceSnapshot before = ResourceSnapshot.take();
    Throwable e = failureOnOwnVertx(options);
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
    return e;
  }

  private static Throwable failureOnOwnVertx(EngineOptions options) {
    Vertx vertx = Vertx.vertx();
    try {
      return failureOf(vertx, options);
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }

  /** Starting must fail: either at once or through the returned future. */
  private static Throwable failureOf(Vertx vertx, EngineOptions options) {
    try {
      return Await.failure(TransferEngine.create(vertx, options), WAIT);
    } catch (VteException e) {
      return e;
    }
  }

  private static void assertCode(ErrorCode code, Throwable t) {
    assertTrue(t instanceof VteException, "a typed error, got " + t);
    assertEquals(code, ((VteException) t).code(), t.getMessage());
  }
}
