package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.Gid;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A requester that posts before its peer QP is ready (the passive side of a handshake): the peer's
 * refusal of the HELLO is retried quickly, so the WR completes soon after the peer reaches RTR, not
 * after a QP timeout; a peer that never gets ready still ends in RETRY_EXC_ERR after timeout x
 * retryCount. The connection opens only once there is something to send.
 */
class FirstConnectTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final long LATE_RTR_MILLIS = 50;

  /** The peer pair: {@code a} is RTS, {@code b} only INIT (its RTR is up to the test). */
  private record Pair(QueuePair a, QueuePair b, CompletionQueue cqA, PortAttributes portA) {}

  private static Pair halfConnected(Fabric f, RtsAttributes rts) {
    CompletionQueue cqA = f.ctx(0).createCq(16);
    QueuePair a = f.qp(0, cqA, 8);
    QueuePair b = f.qp(1, f.ctx(1).createCq(16), 8);
    PortAttributes pa = f.ctx(0).queryPort(1);
    PortAttributes pb = f.ctx(1).queryPort(1);
    a.toInit(1, AccessFlags.ALL_REMOTE);
    b.toInit(1, AccessFlags.ALL_REMOTE);
    a.toRtr(new QpPeer(b.qpNum(), pb.lid(), pb.gid(), 100), 4096);
    a.toRts(new RtsAttributes(200, rts.timeout(), rts.retryCount(), rts.rnrRetry()));
    return new Pair(a, b, cqA, pa);
  }

  @Test
  void aWriteToAPeerThatReachesRtrLateCompletesWellUnderTheQpTimeout() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try (Fabric f = new Fabric(2)) {
      for (int round = 0; round < 5; round++) {
        Pair p = halfConnected(f, Fabric.LOADED);
        ByteBuffer src = ByteBuffer.allocateDirect(4096);
        DirectMemory.fill(DirectMemory.address(src), 4096, (byte) (0x31 + round));
        ByteBuffer dst = ByteBuffer.allocateDirect(4096);
        MemoryRegion ms = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
        MemoryRegion md = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
        WorkRequestBatch wr = WorkRequestBatch.allocate(1);
        wr.add(
            1,
            WrOpcode.RDMA_WRITE,
            WrFlags.SIGNALED,
            ms.address(),
            4096,
            ms.lkey(),
            md.address(),
            md.rkey());
        long t0 = System.nanoTime();
        assertEquals(PostStatus.OK, p.a.postSend(wr));
        var rtr =
            timer.schedule(
                () -> {
                  p.b.toRtr(new QpPeer(p.a.qpNum(), p.portA.lid(), p.portA.gid(), 200), 4096);
                  return System.nanoTime();
                },
                LATE_RTR_MILLIS,
                TimeUnit.MILLISECONDS);
        List<Fabric.Wc> wcs = Fabric.await(p.cqA, 1, DEADLINE);
        long done = System.nanoTime();
        assertEquals(WcStatus.SUCCESS.code(), wcs.get(0).status(), wcs.toString());
        long rtrAt = rtr.get(5, TimeUnit.SECONDS);
        assertTrue(rtrAt - done < 0, "the WR completed only after the peer reached RTR");
        long ms2 = (done - t0) / 1_000_000;
        long half = Fabric.LOADED.timeoutNanos() / 2 / 1_000_000;
        System.out.printf(
            "late RTR round %d: WR completed %d ms after the post (RTR after %d ms)%n",
            round, ms2, (rtrAt - t0) / 1_000_000);
        assertTrue(
            ms2 < half,
            "round "
                + round
                + ": completed after "
                + ms2
                + " ms, want < timeout/2 = "
                + half
                + " ms");
        assertEquals(DataPathTest.crc(src, 0, 4096), DataPathTest.crc(dst, 0, 4096));
        assertEquals(QpState.RTS, p.a.state());
      }
    } finally {
      timer.shutdownNow();
      timer.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  @Test
  void aPeerThatNeverReachesRtrEndsInRetryExceededAfterTimeoutTimesRetries() {
    try (Fabric f = new Fabric(2)) {
      Pair p = halfConnected(f, Fabric.FAST);
      MemoryRegion ms =
          f.pd(0).registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
      ByteBuffer dst = ByteBuffer.allocateDirect(4096);
      MemoryRegion md = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
      WorkRequestBatch wr = WorkRequestBatch.allocate(2);
      wr.add(
          1,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          ms.address(),
          64,
          ms.lkey(),
          md.address(),
          md.rkey());
      wr.add(
          2,
          WrOpcode.RDMA_READ,
          WrFlags.SIGNALED,
          ms.address(),
          64,
          ms.lkey(),
          md.address(),
          md.rkey());
      long t0 = System.nanoTime();
      assertEquals(PostStatus.OK, p.a.postSend(wr));
      List<Fabric.Wc> wcs = Fabric.await(p.cqA, 2, DEADLINE);
      long ms2 = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(WcStatus.RETRY_EXC_ERR.code(), wcs.get(0).status(), wcs.toString());
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(1).status());
      long expected = Fabric.FAST.timeoutNanos() * Fabric.FAST.retryCount() / 1_000_000;
      assertTrue(
          ms2 >= expected - 5,
          "refusals spend no retries: not before timeout x retries ("
              + expected
              + " ms), took "
              + ms2);
      assertEquals(QpState.ERR, p.a.state());
      assertEquals(QpState.INIT, p.b.state());
      assertEquals(0L, dst.getLong(0), "nothing reached the peer's memory");
    }
  }

  @Test
  @SuppressWarnings("try") // the peer is closed early on purpose, to end its acceptor
  void theRequesterConnectsOnlyOnceThereIsWorkToSend() throws Exception {
    try (Fabric f = new Fabric(1);
        ServerSocket peer = new ServerSocket()) {
      peer.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      List<Socket> accepted = new CopyOnWriteArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(peer.accept());
                  }
                } catch (IOException closed) {
                  // test over
                }
              },
              "test-peer-acceptor");
      acceptor.start();
      try {
        CompletionQueue cq = f.ctx(0).createCq(16);
        QueuePair a = f.qp(0, cq, 8);
        a.toInit(1, AccessFlags.ALL_REMOTE);
        a.toRtr(
            new QpPeer(
                77, peer.getLocalPort(), Gid.fromInetAddress(InetAddress.getLoopbackAddress()), 0),
            4096);
        a.toRts(Fabric.LOADED);
        Fabric.assertQuiet(
            cq, Duration.ofMillis(200)); // time enough for an eager connect to show up
        assertEquals(0, accepted.size(), "no connection while nothing is posted");
        MemoryRegion ms =
            f.pd(0).registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
        WorkRequestBatch wr = WorkRequestBatch.allocate(1);
        wr.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, ms.address(), 64, ms.lkey(), 0x1000, 5);
        assertEquals(PostStatus.OK, a.postSend(wr));
        Await.until(
            "the requester connects for its first WR", DEADLINE, () -> accepted.size() == 1);
      } finally {
        peer.close();
        acceptor.join(5000);
        for (Socket s : accepted) {
          s.close();
        }
      }
    }
  }
}
