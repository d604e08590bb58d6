package io.vte.engine.cluster;

import static io.vte.engine.cluster.EtcdEngines.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.EngineInternals;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.metadata.etcd.EtcdMetadataStore;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The stale-descriptor window of etcd metadata: the writer's watch is held back, so its cache still
 * holds the peer's descriptor from before the peer registered a new buffer. A request into the new
 * buffer reads the descriptor from etcd once and goes through; a request outside every buffer still
 * fails OUT_OF_RANGE after that one read.
 */
@ExtendWith(BlockedThreadGuard.class)
class EtcdStaleWindowTest {

  private static final int LENGTH = (1 << 20) + 3;
  private static final int BUFFERS = 5;

  private EtcdServer etcd;
  private EtcdEngines engines;

  @BeforeEach
  void start() {
    etcd = EtcdServer.start();
    engines = new EtcdEngines(etcd, "/vte/window");
  }

  @AfterEach
  void stop() {
    engines.close();
    etcd.close();
  }

  @Test
  void aWriteIntoABufferTheWatchHasNotReportedYetSucceeds() {
    TransferEngineImpl a = engines.start("writer");
    TransferEngineImpl b = engines.start("store");
    RegisteredBuffer local = engines.register(a, LENGTH, 7);
    engines.register(b, LENGTH, 8);
    Await.until(
        "the writer sees the store's first buffer",
        WAIT,
        () -> Await.result(a.openSegment("store"), WAIT).buffers().size() == 1);
    EtcdMetadataStore store = (EtcdMetadataStore) EngineInternals.metadataStore(a);
    Await.result(store.holdWatchEvents(true), WAIT);
    try {
      RegisteredBuffer added = null;
      for (int n = 2; n <= BUFFERS; n++) {
        added = engines.register(b, LENGTH, 7 + n);
        assertInEtcd(b, n);
        SegmentHandle opened = Await.result(a.openSegment("store"), WAIT);
        assertEquals(n - 1, opened.buffers().size(), "the held watch leaves the writer stale");
        long refreshes = EngineInternals.counters(a).staleRefreshes();

        BatchResult r = write(a, local, opened, added.address());
        assertTrue(r.allCompleted(), "write into " + added + " through " + opened + ": " + r);
        assertEquals(
            ClusterMemory.crc(local.address(), LENGTH),
            ClusterMemory.crc(added.address(), LENGTH),
            "buffer " + n);
        assertEquals(
            refreshes + 1, EngineInternals.counters(a).staleRefreshes(), "one read of etcd");
        assertEquals(
            n,
            Await.result(a.openSegment("store"), WAIT).buffers().size(),
            "re-opening returns the descriptor read from etcd");
      }

      SegmentHandle opened = Await.result(a.openSegment("store"), WAIT);
      long refreshes = EngineInternals.counters(a).staleRefreshes();
      long beyond = added.address() + (256L << 20);
      Throwable e = Await.failure(submit(a, local, opened, beyond), WAIT);
      assertEquals(ErrorCode.OUT_OF_RANGE, ((VteException) e).code(), e.toString());
      assertTrue(e.getMessage().contains(Long.toHexString(beyond)), e.getMessage());
      assertTrue(
          e.getMessage().contains(BUFFERS + " buffers"), "checked the fresh descriptor: " + e);
      assertEquals(
          refreshes + 1,
          EngineInternals.counters(a).staleRefreshes(),
          "read etcd once, then gave up");
    } finally {
      Await.result(store.holdWatchEvents(false), WAIT);
    }
  }

  /** Checks that etcd holds {@code n} buffers of the store: register() returns after its put. */
  private static void assertInEtcd(TransferEngineImpl b, int n) {
    assertEquals(
        n,
        Await.result(EngineInternals.metadataStore(b).lookupFresh("store"), WAIT).getBuffersCount(),
        "etcd holds the store's buffer " + n + " when register returns");
  }

  private static io.vertx.core.Future<BatchResult> submit(
      TransferEngineImpl a, RegisteredBuffer local, SegmentHandle handle, long remote) {
    return a.submit(
            List.of(TransferRequest.write(local, 0, handle, remote, LENGTH)), new TransferOptions())
        .result();
  }

  private static BatchResult write(
      TransferEngineImpl a, RegisteredBuffer local, SegmentHandle handle, long remote) {
    return Await.result(submit(a, local, handle, remote), WAIT);
  }
}
