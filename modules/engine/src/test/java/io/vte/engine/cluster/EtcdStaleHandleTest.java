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
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A handle kept by the user goes on refreshing itself with etcd metadata, buffer after buffer of
 * the peer.
 */
@ExtendWith(BlockedThreadGuard.class)
class EtcdStaleHandleTest {

  private static final int LENGTH = (1 << 20) + 5;

  private EtcdServer etcd;
  private EtcdEngines engines;

  @BeforeEach
  void start() {
    etcd = EtcdServer.start();
    engines = new EtcdEngines(etcd, "/vte/stale");
  }

  @AfterEach
  void stop() {
    engines.close();
    etcd.close();
  }

  @Test
  void aKeptHandleReachesEveryNewBufferOfThePeer() {
    TransferEngineImpl a = engines.start("writer");
    TransferEngineImpl b = engines.start("store");
    RegisteredBuffer local = engines.register(a, LENGTH, 1);
    RegisteredBuffer first = engines.register(b, LENGTH, 2);
    awaitBuffers(a, 1);
    SegmentHandle kept = Await.result(a.openSegment("store"), WAIT);
    write(a, kept, local, first);
    for (int n = 2; n <= 3; n++) {
      RegisteredBuffer added = engines.register(b, LENGTH, 1 + n);
      awaitBuffers(a, n);
      write(a, kept, local, added);
    }
    long beyond = first.address() + (256L << 20);
    Throwable e =
        Await.failure(
            a.submit(
                    List.of(TransferRequest.write(local, 0, kept, beyond, LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertEquals(ErrorCode.OUT_OF_RANGE, ((VteException) e).code(), e.toString());
    assertTrue(e.getMessage().contains(Long.toHexString(beyond)), e.getMessage());
  }

  private static void awaitBuffers(TransferEngineImpl a, int n) {
    Await.until(
        "the watch told the writer of buffer " + n,
        WAIT,
        () -> Await.result(a.openSegment("store"), WAIT).buffers().size() == n);
  }

  private static void write(
      TransferEngineImpl a, SegmentHandle handle, RegisteredBuffer local, RegisteredBuffer remote) {
    BatchResult r =
        Await.result(
            a.submit(
                    List.of(TransferRequest.write(local, 0, handle, remote.address(), LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertTrue(r.allCompleted(), "write into " + remote + " through " + handle + ": " + r);
    assertEquals(
        ClusterMemory.crc(local.address(), LENGTH), ClusterMemory.crc(remote.address(), LENGTH));
  }
}
