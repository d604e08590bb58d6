package io.vte.mooncake;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Mooncake's etcd keys against a real etcd: a VTE target published there, opened by name. */
@ExtendWith(BlockedThreadGuard.class)
class MooncakeEtcdTest {

  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void targetPublishedInEtcdIsOpenedByItsSegmentName() {
    NettyWarmUp.once();
    Vertx vertx = Vertx.vertx();
    try (EtcdServer etcd = EtcdServer.start();
        TestMemory remote = new TestMemory(1 << 20, "cpu:0");
        TestMemory local = new TestMemory(1 << 20, "cpu:0")) {
      MooncakeTarget target =
          Await.result(MooncakeTarget.start(vertx, new MooncakeOptions()), WAIT);
      target.expose(remote);
      MooncakeEtcd keys = new MooncakeEtcd(vertx, etcd.endpoint());
      Await.result(keys.publish("vte-node-1", target), WAIT);
      assertEquals(
          remote.address(),
          Await.result(keys.segment("vte-node-1"), WAIT).buffers().get(0).address(),
          "mooncake/ram/vte-node-1 holds the descriptor");

      MooncakeTransport transport = MooncakeTransport.create(vertx, new MooncakeOptions());
      MooncakeSegment s =
          Await.result(transport.openSegmentFromEtcd(etcd.endpoint(), "vte-node-1"), WAIT);
      assertEquals("vte-node-1", s.name());
      assertEquals(target.serverName(), s.serverName(), "from mooncake/rpc_meta/vte-node-1");
      local.fill(5);
      BatchResult r =
          Await.result(
              transport
                  .submit(
                      List.of(TransferRequest.write(local, 0, s, remote.address(), 1 << 20)),
                      new TransferOptions())
                  .result(),
              WAIT);
      assertTrue(r.allCompleted(), r.toString());
      assertEquals(-1, remote.mismatch(5, 0, 1 << 20, 0));

      Throwable absent =
          Await.failure(transport.openSegmentFromEtcd(etcd.endpoint(), "no-such-node"), WAIT);
      assertEquals(ErrorCode.SEGMENT_NOT_FOUND, ((VteException) absent).code());
      Await.result(transport.close(), WAIT);
      Await.result(target.close(), WAIT);
      Await.result(keys.close(), WAIT);
    } finally {
      Await.result(vertx.close(), WAIT);
    }
  }
}
