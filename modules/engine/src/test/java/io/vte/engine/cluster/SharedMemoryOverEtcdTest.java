package io.vte.engine.cluster;

import static io.vte.engine.cluster.EtcdEngines.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.AuthOptions;
import io.vte.api.BatchResult;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.engine.impl.EngineInternals;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The same-host rail when segments are found in etcd: a peer that opens a segment by name copies
 * into the owner's allocated memory directly, with or without auth (with auth on, etcd's descriptor
 * leaves shared memory out, and only an authenticated GetSegment tells the peer of it).
 */
@ExtendWith(BlockedThreadGuard.class)
class SharedMemoryOverEtcdTest {

  private static final int LENGTH = 1 << 20;

  private EtcdServer etcd;
  private EtcdEngines engines;

  @BeforeEach
  void start() {
    etcd = EtcdServer.start();
    engines = new EtcdEngines(etcd, "/vte/shm");
  }

  @AfterEach
  void stop() {
    engines.close();
    etcd.close();
  }

  @Test
  void aPeerThatOpensTheSegmentByNameTakesTheRail() {
    writeThroughTheRail(null);
  }

  @Test
  void withAuthAnAuthenticatedPeerThatOpensTheSegmentByNameTakesTheRail() {
    writeThroughTheRail(
        new AuthOptions().setKeyId("k1").setSecretBase64("c2VjcmV0LXNlY3JldC0xMjM0"));
  }

  private void writeThroughTheRail(AuthOptions auth) {
    TransferEngineImpl owner = engines.start(Vertx.vertx(), engines.options("owner").setAuth(auth));
    TransferEngineImpl requester =
        engines.start(Vertx.vertx(), engines.options("requester").setAuth(auth));
    RegisteredBuffer remote = Await.result(owner.allocate(LENGTH, "cpu:0"), WAIT);
    if (auth != null) {
      SegmentDescriptor stored = EngineInternals.descriptorForStore(owner);
      assertFalse(stored.getBuffers(0).hasShm(), "etcd's copy leaves the file out");
      assertFalse(stored.getShmBootId().isEmpty(), "and names the host instead");
    }
    RegisteredBuffer local = engines.register(requester, LENGTH, 3);
    SegmentHandle seg = Await.result(requester.openSegment("owner"), WAIT);
    BatchResult r =
        Await.result(
            requester
                .submit(
                    List.of(TransferRequest.write(local, 0, seg, remote.address(), LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertTrue(r.allCompleted(), r.toString());
    assertEquals(
        LENGTH,
        EngineInternals.sharedMemoryRail(requester).copiedBytes(),
        "every byte took the rail");
    assertEquals(
        -1, local.byteBuffer().mismatch(remote.byteBuffer()), "the owner's memory holds them");
  }
}
