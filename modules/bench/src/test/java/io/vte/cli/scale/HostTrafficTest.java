package io.vte.cli.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.cli.common.Blocking;
import io.vte.testkit.Await;
import io.vte.testkit.EtcdServer;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A host's first transfer to a peer that starts after it (a staggered start). */
class HostTrafficTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ScaleSettings SETTINGS =
      new ScaleSettings(
          1, 1, 4096, 1, Duration.ofSeconds(1), Duration.ofSeconds(5), "etcd", 1.0, 16);

  @Test
  void theFirstTransferWaitsForAPeerWhoseSegmentIsNotPublishedYet() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EtcdServer etcd = EtcdServer.start()) {
      TransferEngine first = start(vertx, etcd, 0);
      RegisteredBuffer source =
          Blocking.await(first.register(ByteBuffer.allocateDirect(8192), "cpu:0"), WAIT, "reg");
      source.byteBuffer().put(0, (byte) 0x5a);
      HostTraffic traffic = new HostTraffic(vertx, first, source, 0, 2, SETTINGS);
      AtomicLong failed = new AtomicLong();
      CountDownLatch done = new CountDownLatch(1);
      SegmentHandle[] segs = new SegmentHandle[2];
      traffic.first(1, "host-1", System.nanoTime() + WAIT.toNanos(), segs, ns -> {}, failed, done);
      Await.until(
          "host 0 looked host-1 up before it existed",
          WAIT,
          () -> traffic.unpublishedLookups() > 0);
      assertEquals(
          1, done.getCount(), "the first transfer still waits: " + traffic.failureCauses());

      TransferEngine second = start(vertx, etcd, 1);
      ByteBuffer target = ByteBuffer.allocateDirect(8192);
      Blocking.await(second.register(target, "cpu:0"), WAIT, "register host 1");
      assertTrue(done.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the first transfer ended");
      assertEquals(0, failed.get(), "failures: " + traffic.failureCauses());
      assertEquals((byte) 0x5a, target.get(0), "host 0 wrote at its offset in host 1's buffer");
      Blocking.awaitClosed(second.close(), WAIT, "close host 1");
      Blocking.awaitClosed(first.close(), WAIT, "close host 0");
    } finally {
      Blocking.awaitClosed(vertx.close(), WAIT, "close vertx");
    }
  }

  private static TransferEngine start(Vertx vertx, EtcdServer etcd, int host) throws Exception {
    EngineOptions o =
        new EngineOptions()
            .setDevices(List.of("ht" + host + "@127.0.0.1"))
            .setRpcHost("127.0.0.1")
            .setMetadataUri(etcd.uri())
            .setSegmentName("host-" + host)
            .setMetadata(new MetadataOptions().setClusterPrefix("/vte/host-traffic-test"));
    return Blocking.await(TransferEngine.create(vertx, o), WAIT, "engine " + host);
  }
}
