package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.ResourceSnapshot;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Close leaves nothing behind; 8 QPs x 4 devices at once; posting from a Vert.x event loop never
 * blocks it.
 */
@ExtendWith(BlockedThreadGuard.class)
class ResourceAndConcurrencyTest {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  /**
   * 8 QPs on each of 4 devices, each connected to a QP on the next device, all moving data at once.
   */
  private static void eightQpsTimesFourDevices(Fabric f, int rounds) throws Exception {
    int perDevice = 8;
    int size = 64 * 1024;
    List<Thread> threads = new ArrayList<>();
    CyclicBarrier start = new CyclicBarrier(4 * perDevice);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    for (int d = 0; d < 4; d++) {
      int peer = (d + 1) % 4;
      for (int q = 0; q < perDevice; q++) {
        CompletionQueue cq = f.ctx(d).createCq(8);
        QueuePair a = f.qp(d, cq, 4);
        QueuePair b = f.qp(peer, f.ctx(peer).createCq(8), 4);
        Fabric.connect(
            a,
            f.ctx(d),
            b,
            f.ctx(peer),
            Fabric.LOADED); // 32 busy QPs on 2 cores: no spurious timeouts
        ByteBuffer src = ByteBuffer.allocateDirect(size);
        ByteBuffer dst = ByteBuffer.allocateDirect(size);
        ByteBuffer back = ByteBuffer.allocateDirect(size);
        MemoryRegion ms = f.pd(d).registerMemory(src, AccessFlags.LOCAL_WRITE);
        MemoryRegion mb = f.pd(d).registerMemory(back, AccessFlags.LOCAL_WRITE);
        MemoryRegion md = f.pd(peer).registerMemory(dst, AccessFlags.ALL_REMOTE);
        long seed = d * 100L + q;
        Thread t =
            new Thread(
                () -> {
                  try {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    WorkRequestBatch wr = WorkRequestBatch.allocate(2);
                    start.await();
                    for (int r = 0; r < rounds; r++) {
                      src.clear();
                      while (src.hasRemaining()) {
                        src.putLong(rnd.nextLong());
                      }
                      int len = 1 + rnd.nextInt(size);
                      wr.clear();
                      wr.add(
                          1,
                          WrOpcode.RDMA_WRITE,
                          WrFlags.NONE,
                          ms.address(),
                          len,
                          ms.lkey(),
                          md.address(),
                          md.rkey());
                      wr.add(
                          2,
                          WrOpcode.RDMA_READ,
                          WrFlags.SIGNALED,
                          mb.address(),
                          len,
                          mb.lkey(),
                          md.address(),
                          md.rkey());
                      assertEquals(PostStatus.OK, a.postSend(wr));
                      Fabric.Wc wc = Fabric.await(cq, 1, DEADLINE).get(0);
                      assertEquals(WcStatus.SUCCESS.code(), wc.status(), wc.toString());
                      assertEquals(
                          DataPathTest.crc(src, 0, len),
                          DataPathTest.crc(back, 0, len),
                          "round " + r);
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                },
                "qp-driver-" + d + "-" + q);
        threads.add(t);
      }
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join(DEADLINE.toMillis());
    }
    if (failure.get() != null) {
      throw new AssertionError("a QP driver failed", failure.get());
    }
  }

  @Test
  void eightQpsOnEachOfFourDevicesRunConcurrentlyByteExact() throws Exception {
    try (Fabric f = new Fabric(4)) {
      eightQpsTimesFourDevices(f, 25);
    }
  }

  @Test
  void closingTheProviderLeavesNoThreadOrSocketBehind() throws Exception {
    ResourceSnapshot before = ResourceSnapshot.take();
    Fabric f = new Fabric(4);
    eightQpsTimesFourDevices(f, 3);
    f.close();
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
  }

  @Test
  void closingAfterPortFlapsAndADeviceKillLeavesNothingBehind() throws Exception {
    ResourceSnapshot before = ResourceSnapshot.take();
    Fabric f = new Fabric(2);
    CompletionQueue cq = f.ctx(0).createCq(64);
    MemoryRegion ms = f.localMr(1 << 20);
    MemoryRegion md = f.remoteMr(1 << 20);
    QueuePair a = f.pair(cq, 32, 8, 4, Fabric.FAST).a();
    WorkRequestBatch wr = WorkRequestBatch.allocate(32);
    for (int i = 0; i < 32; i++) {
      wr.add(
          i,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          ms.address(),
          1 << 20,
          ms.lkey(),
          md.address(),
          md.rkey());
    }
    assertEquals(PostStatus.OK, a.postSend(wr));
    for (int i = 0; i < 3; i++) {
      f.provider.faults().portDown("soft1", 1);
      f.provider.faults().portUp("soft1", 1);
    }
    f.provider.faults().killDevice("soft0");
    assertEquals(
        32, Fabric.await(cq, 32, DEADLINE).size(), "every WR completes, one way or the other");
    f.close();
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
  }

  @Test
  void closingQpsAndMrsOneByOneReleasesTheirConnections() throws Exception {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(16);
      ByteBuffer buf = ByteBuffer.allocateDirect(4096);
      MemoryRegion ms = f.pd(0).registerMemory(buf, AccessFlags.LOCAL_WRITE);
      MemoryRegion md = f.remoteMr(4096);
      ResourceSnapshot before = ResourceSnapshot.take();
      for (int i = 0; i < 20; i++) {
        QueuePair a = f.qp(0, cq, 4);
        CompletionQueue cqB = f.ctx(1).createCq(4);
        QueuePair b = f.qp(1, cqB, 4);
        Fabric.connect(a, f.ctx(0), b, f.ctx(1), Fabric.FAST);
        WorkRequestBatch wr = WorkRequestBatch.allocate(1);
        wr.add(
            i,
            WrOpcode.RDMA_WRITE,
            WrFlags.SIGNALED,
            ms.address(),
            64,
            ms.lkey(),
            md.address(),
            md.rkey());
        assertEquals(PostStatus.OK, a.postSend(wr));
        assertEquals(WcStatus.SUCCESS.code(), Fabric.await(cq, 1, DEADLINE).get(0).status());
        a.close();
        b.close();
        cqB.close();
      }
      ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
      WorkCompletionBatch wcs = WorkCompletionBatch.allocate(1);
      cq.close();
      assertEquals(PostStatus.CLOSED, cq.poll(wcs));
    }
  }

  @Test
  void postingAndPollingFromAnEventLoopNeverBlocksIt() {
    Vertx vertx = Vertx.vertx();
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      QueuePair a = f.pair(cq, 32, 8, 4, Fabric.LOADED).a();
      ByteBuffer src = ByteBuffer.allocateDirect(1 << 20);
      MemoryRegion ms = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
      MemoryRegion md = f.remoteMr(1 << 20);
      Context ctx = vertx.getOrCreateContext();
      Promise<Integer> done = Promise.promise();
      int total = 2000;
      ctx.runOnContext(
          v ->
              new Object() {
                final WorkRequestBatch wr = WorkRequestBatch.allocate(32);
                final WorkCompletionBatch wcs = WorkCompletionBatch.allocate(32);
                int posted;
                int completed;
                int outstanding;

                void start() {
                  cq.setNotificationHandler(q -> ctx.runOnContext(x -> drive()));
                  drive();
                }

                void drive() {
                  while (true) {
                    int n = cq.poll(wcs);
                    if (n == 0) {
                      post();
                      if (completed == total) {
                        done.tryComplete(completed);
                        return;
                      }
                      cq.requestNotify();
                      n = cq.poll(wcs); // closes the race with a completion that came before arming
                      if (n == 0) {
                        return;
                      }
                    }
                    if (n < 0) {
                      // an error code, not a count: fail with it rather than loop on the event loop
                      done.tryFail(
                          "poll returned "
                              + PostStatus.name(n)
                              + " after "
                              + completed
                              + " completions with "
                              + outstanding
                              + " outstanding");
                      return;
                    }
                    if (!handle(n)) {
                      return;
                    }
                  }
                }

                boolean handle(int n) {
                  for (int i = 0; i < n; i++) {
                    if (wcs.status(i) != 0) {
                      done.tryFail("completion failed: " + WcStatus.of(wcs.status(i)));
                      return false;
                    }
                  }
                  completed += n;
                  outstanding -= n;
                  return true;
                }

                void post() {
                  wr.clear();
                  while (posted < total && outstanding + wr.size() < 32) {
                    int size = 1 + (posted * 7919) % (1 << 20);
                    wr.add(
                        posted++,
                        WrOpcode.RDMA_WRITE,
                        WrFlags.SIGNALED,
                        ms.address(),
                        size,
                        ms.lkey(),
                        md.address(),
                        md.rkey());
                  }
                  if (wr.size() > 0) {
                    outstanding += wr.size();
                    if (a.postSend(wr) != PostStatus.OK) {
                      done.tryFail("post failed");
                    }
                  }
                }
              }.start());
      assertEquals(total, Await.result(done.future(), DEADLINE));
    } finally {
      Await.result(vertx.close(), DEADLINE);
    }
  }
}
