package io.vte.engine.cluster;

import static io.vte.engine.cluster.EtcdEngines.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
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
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The engine's {@code metadata} options carry etcd credentials through to the store. */
@ExtendWith(BlockedThreadGuard.class)
class EngineEtcdAuthTest {

  private static final String PREFIX = "/vte/eauth";
  private static final int LENGTH = 512 * 1024 + 5;

  private EtcdServer etcd;
  private EtcdEngines engines;

  @BeforeEach
  void startEtcdWithAuth() {
    etcd = EtcdServer.start();
    etcd.etcdctl("user", "add", "root:rootpw");
    etcd.etcdctl("user", "add", "vte:s3cret");
    etcd.etcdctl("role", "add", "vte-node");
    etcd.etcdctl(
        "role", "grant-permission", "vte-node", "--prefix=true", "readwrite", PREFIX + "/");
    etcd.etcdctl("user", "grant-role", "vte", "vte-node");
    etcd.etcdctl("auth", "enable");
    engines = new EtcdEngines(etcd, PREFIX);
  }

  @AfterEach
  void stop() {
    engines.close();
    etcd.close();
  }

  private EngineOptions options(String name, String password) {
    EngineOptions o = engines.options(name);
    // etcd checks passwords with bcrypt: slow on a loaded 2-core machine, hence the generous
    // deadline.
    o.getMetadata()
        .setEtcdUser("vte")
        .setEtcdPassword(password)
        .setCallDeadline(Duration.ofMillis(10_000));
    return o;
  }

  @Test
  void enginesWithTheRightCredentialsMeetByName() {
    TransferEngineImpl a = engines.start(Vertx.vertx(), options("auth-a", "s3cret"));
    TransferEngineImpl b = engines.start(Vertx.vertx(), options("auth-b", "s3cret"));
    RegisteredBuffer local = engines.register(a, LENGTH, 1);
    RegisteredBuffer remote = engines.register(b, LENGTH, 2);
    Await.until(
        "b's buffer is published",
        WAIT,
        () -> Await.result(a.openSegment("auth-b"), WAIT).buffers().size() == 1);
    SegmentHandle peer = Await.result(a.openSegment("auth-b"), WAIT);
    BatchResult read =
        Await.result(
            a.submit(
                    List.of(TransferRequest.read(local, 0, peer, remote.address(), LENGTH)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertTrue(read.allCompleted(), read.toString());
    assertEquals(
        ClusterMemory.expectedCrc(2, 0, LENGTH), ClusterMemory.crc(local.address(), LENGTH));
    String stored =
        etcd.etcdctl(
            "--user=root:rootpw", "get", PREFIX + "/segments/auth-b", "--print-value-only");
    assertTrue(stored.contains(b.serverName()), "the descriptor names b's RPC address: " + stored);
  }

  @Test
  void aWrongPasswordFailsTheStartWithPermissionDenied() {
    Vertx vertx = Vertx.vertx();
    try {
      VteException e =
          assertInstanceOf(
              VteException.class,
              Await.failure(TransferEngine.create(vertx, options("intruder", "wrong")), WAIT));
      assertEquals(ErrorCode.PERMISSION_DENIED, e.code(), e.getMessage());
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }
}
