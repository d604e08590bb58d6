package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortState;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Timeouts, port down mid-stream, CQ overflow, async events, frame loss and malformed frames. */
class FailureTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  @Test
  void aDeadPeerTimesOutWithRetryExceededAfterTimeoutTimesRetries() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(16);
      QueuePair a = f.pair(cq, 8, Fabric.FAST).a();
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      f.ctx(1).close(); // the peer device dies: its sockets close, nothing answers any more
      long t0 = System.nanoTime();
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(3, src, dst, 64)));
      List<Fabric.Wc> wcs = Fabric.await(cq, 3, DEADLINE);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(WcStatus.RETRY_EXC_ERR.code(), wcs.get(0).status(), wcs.toString());
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(1).status());
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(2).status());
      long expected = Fabric.FAST.timeoutNanos() * Fabric.FAST.retryCount() / 1_000_000;
      assertTrue(
          ms >= expected - 5, "not before timeout x retries (" + expected + " ms), took " + ms);
      assertEquals(QpState.ERR, a.state());
    }
  }

  @Test
  @SuppressWarnings("try") // the silent peer is closed early on purpose, to end its acceptor
  void aPeerThatAcceptsButNeverAnswersTimesOut() throws Exception {
    try (Fabric f = new Fabric(1);
        ServerSocket silent = new ServerSocket()) {
      silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      List<Socket> accepted = new CopyOnWriteArrayList<>();
      Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (true) {
                    accepted.add(silent.accept());
                  }
                } catch (java.io.IOException closed) {
                  // test over
                }
              });
      acceptor.start();
      CompletionQueue cq = f.ctx(0).createCq(16);
      QueuePair a = f.qp(0, cq, 8);
      a.toInit(1, AccessFlags.ALL_REMOTE);
      a.toRtr(
          new QpPeer(
              77, silent.getLocalPort(), Gid.fromInetAddress(InetAddress.getLoopbackAddress()), 0),
          4096);
      a.toRts(Fabric.FAST);
      MemoryRegion src = f.localMr(4096);
      WorkRequestBatch wr = WorkRequestBatch.allocate(2);
      wr.add(1, WrOpcode.RDMA_READ, WrFlags.SIGNALED, src.address(), 64, src.lkey(), 0x1000, 5);
      wr.add(2, WrOpcode.RDMA_WRITE, WrFlags.NONE, src.address(), 64, src.lkey(), 0x1000, 5);
      assertEquals(PostStatus.OK, a.postSend(wr));
      List<Fabric.Wc> wcs = Fabric.await(cq, 2, DEADLINE);
      assertEquals(WcStatus.RETRY_EXC_ERR.code(), wcs.get(0).status());
      assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(1).status());
      assertTrue(!accepted.isEmpty(), "the NIC did connect");
      silent.close();
      acceptor.join(5000);
      for (Socket s : accepted) {
        s.close();
      }
    }
  }

  @Test
  void portDownMidStreamCompletesEveryOutstandingWorkRequestExactlyOnceWithAnError() {
    for (int round = 0; round < 4; round++) {
      int side = round % 2; // the requester's port, then the responder's
      try (Fabric f = new Fabric(2)) {
        List<AsyncEvent> events = new CopyOnWriteArrayList<>(); // of both devices
        f.ctx(0).setAsyncEventHandler(events::add);
        f.ctx(1).setAsyncEventHandler(events::add);
        int n = 64;
        CompletionQueue cq = f.ctx(0).createCq(n);
        QueuePair a = f.pair(cq, n, Fabric.FAST).a();
        MemoryRegion src = f.localMr(1 << 20);
        MemoryRegion dst = f.remoteMr(1 << 20);
        // every request frame waits 50 ms before it leaves, so the 64 writes take ~3 s and the port
        // surely
        // goes down while most are still outstanding (unthrottled, all 64 MiB can land before it
        // does)
        f.provider.faults().delayFrames("soft0", 1.0, Duration.ofMillis(50).toNanos(), round);
        assertEquals(PostStatus.OK, a.postSend(Fabric.writes(n, src, dst, 1 << 20)));
        List<Fabric.Wc> all =
            new ArrayList<>(Fabric.await(cq, 1, DEADLINE)); // mid-stream: some went through
        f.provider.faults().portDown("soft" + side, 1);
        Await.untilEquals(
            "port down", DEADLINE, PortState.DOWN, () -> f.ctx(side).queryPort(1).state());
        Map<Long, Integer> seen = new HashMap<>();
        all.addAll(Fabric.await(cq, n - all.size(), DEADLINE));
        int errors = 0;
        for (Fabric.Wc wc : all) {
          assertEquals(null, seen.put(wc.wrId(), wc.status()), "completed twice: " + wc.wrId());
          if (wc.status() != WcStatus.SUCCESS.code()) {
            errors++;
            assertTrue(
                wc.status() == WcStatus.RETRY_EXC_ERR.code()
                    || wc.status() == WcStatus.WR_FLUSH_ERR.code(),
                wc.toString());
          }
        }
        assertEquals(n, seen.size());
        assertTrue(errors > 0, "work outstanding at port down must fail");
        Fabric.assertQuiet(cq, Duration.ofMillis(50));
        assertEquals(
            List.of("soft" + side),
            events.stream()
                .filter(e -> e.type() == AsyncEventType.PORT_ERR)
                .map(AsyncEvent::deviceName)
                .toList(),
            events.toString());
        assertTrue( // a NIC thread that failed would flush too: it must not be why the work ended
            events.stream().noneMatch(e -> e.type() == AsyncEventType.DEVICE_FATAL),
            events.toString());
        f.provider.faults().portUp("soft" + side, 1);
        Await.until(
            "PORT_ACTIVE raised",
            DEADLINE,
            () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.PORT_ACTIVE));
      }
    }
  }

  @Test
  void aPortThatIsDownRefusesNewConnectionsAndWorksAgainWhenUp() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(16);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      f.provider.faults().portDown("soft1", 1);
      Await.untilEquals("port down", DEADLINE, PortState.DOWN, () -> f.ctx(1).queryPort(1).state());
      QueuePair a = f.pair(cq, 8, Fabric.FAST).a();
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(1, src, dst, 8)));
      assertEquals(WcStatus.RETRY_EXC_ERR.code(), Fabric.await(cq, 1, DEADLINE).get(0).status());
      f.provider.faults().portUp("soft1", 1);
      Await.untilEquals("port up", DEADLINE, PortState.ACTIVE, () -> f.ctx(1).queryPort(1).state());
      QueuePair c = f.pair(cq, 8, Fabric.FAST).a();
      assertEquals(PostStatus.OK, c.postSend(Fabric.writes(1, src, dst, 8)));
      assertEquals(WcStatus.SUCCESS.code(), Fabric.await(cq, 1, DEADLINE).get(0).status());
    }
  }

  @Test
  void droppedFramesAreRecoveredByRetransmissionWithinTheRetryBudget() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(256);
      QueuePair a = f.pair(cq, 16, new RtsAttributes(0, 15, 7, 0)).a(); // 134 ms x 7
      ByteBuffer s = ByteBuffer.allocateDirect(16 * 4096);
      ByteBuffer d = ByteBuffer.allocateDirect(16 * 4096);
      for (int i = 0; i < s.capacity(); i++) {
        s.put(i, (byte) (i * 7 + 3));
      }
      MemoryRegion src = f.pd(0).registerMemory(s, AccessFlags.LOCAL_WRITE);
      MemoryRegion dst = f.pd(1).registerMemory(d, AccessFlags.ALL_REMOTE);
      f.provider.faults().dropFrames("soft0", 0.05, 42);
      f.provider.faults().dropFrames("soft1", 0.05, 43);
      WorkRequestBatch wr = WorkRequestBatch.allocate(16);
      int ok = 0;
      for (int round = 0; round < 10; round++) {
        wr.clear();
        for (int i = 0; i < 16; i++) {
          wr.add(
              round * 16 + i,
              i % 3 == 0 ? WrOpcode.RDMA_READ : WrOpcode.RDMA_WRITE,
              WrFlags.SIGNALED,
              src.address() + 4096L * i,
              4096,
              src.lkey(),
              dst.address() + 4096L * i,
              dst.rkey());
        }
        assertEquals(PostStatus.OK, a.postSend(wr));
        for (Fabric.Wc wc : Fabric.await(cq, 16, DEADLINE)) {
          assertEquals(WcStatus.SUCCESS.code(), wc.status(), "round " + round + ": " + wc);
          ok++;
        }
      }
      assertEquals(160, ok);
      assertEquals(DataPathTest.crc(s, 0, s.capacity()), DataPathTest.crc(d, 0, d.capacity()));
    }
  }

  @Test
  void aLostRequestIsResentOnTheRespondersSequenceNakNotAtTheAckTimeout() {
    for (int lost : new int[] {1, 5, 31}) { // the first, a middle and the next-to-last request
      try (Fabric f = new Fabric(2)) {
        CompletionQueue cq = f.ctx(0).createCq(64);
        QueuePair a =
            f.pair(cq, 32, new RtsAttributes(0, 24, 1, 0)).a(); // one 68 s timeout, no retry
        ByteBuffer s = ByteBuffer.allocateDirect(32 * 4096);
        ByteBuffer d = ByteBuffer.allocateDirect(32 * 4096);
        for (int i = 0; i < s.capacity(); i++) {
          s.put(i, (byte) (i * 13 + lost));
        }
        MemoryRegion src = f.pd(0).registerMemory(s, AccessFlags.LOCAL_WRITE);
        MemoryRegion dst = f.pd(1).registerMemory(d, AccessFlags.ALL_REMOTE);
        f.provider.faults().dropOneFrame("soft0", lost);
        WorkRequestBatch wr = WorkRequestBatch.allocate(32);
        for (int i = 0; i < 32; i++) {
          wr.add(
              i,
              WrOpcode.RDMA_WRITE,
              WrFlags.SIGNALED,
              src.address() + 4096L * i,
              4096,
              src.lkey(),
              dst.address() + 4096L * i,
              dst.rkey());
        }
        assertEquals(PostStatus.OK, a.postSend(wr));
        // only a NAK gets these done within the deadline: the ACK timeout would take 68 s, and then
        // fail them
        List<Fabric.Wc> wcs = Fabric.await(cq, 32, DEADLINE);
        for (int i = 0; i < 32; i++) {
          assertEquals(i, wcs.get(i).wrId());
          assertEquals(
              WcStatus.SUCCESS.code(),
              wcs.get(i).status(),
              "request " + lost + " lost: " + wcs.get(i));
        }
        assertEquals(
            DataPathTest.crc(s, 0, s.capacity()),
            DataPathTest.crc(d, 0, d.capacity()),
            "request " + lost + " lost");
        Fabric.assertQuiet(cq, Duration.ofMillis(20));
      }
    }
  }

  @Test
  void theFrameToDropIsCountedFromOne() {
    try (Fabric f = new Fabric(1)) {
      VerbsException e =
          assertThrows(VerbsException.class, () -> f.provider.faults().dropOneFrame("soft0", 0));
      assertEquals(VerbsError.INVALID_ARGUMENT, e.error());
      assertTrue(e.getMessage().contains("got 0"), e.getMessage());
    }
  }

  @Test
  void aLostReadResponseIsResentOnTheSameConnectionWithoutAProtocolError() {
    Logger deviceLog = Logger.getLogger("io.vte.verbs.soft.impl.SoftDevice");
    List<String> warnings = new CopyOnWriteArrayList<>();
    Handler recorder =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
              warnings.add(new java.util.logging.SimpleFormatter().formatMessage(r));
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    deviceLog.addHandler(recorder);
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      QueuePair a = f.pair(cq, 16, new RtsAttributes(0, 15, 7, 0)).a(); // 134 ms x 7
      ByteBuffer remote = ByteBuffer.allocateDirect(16 * 4096);
      ByteBuffer local = ByteBuffer.allocateDirect(16 * 4096);
      MemoryRegion src = f.pd(1).registerMemory(remote, AccessFlags.ALL_REMOTE);
      MemoryRegion dst = f.pd(0).registerMemory(local, AccessFlags.LOCAL_WRITE);
      f.provider
          .faults()
          .dropFrames("soft1", 0.2, 11); // the responder loses a fifth of its READ responses
      WorkRequestBatch wr = WorkRequestBatch.allocate(16);
      for (int round = 0; round < 20; round++) {
        for (int i = 0; i < remote.capacity(); i++) {
          remote.put(i, (byte) (i * 31 + round));
        }
        wr.clear();
        for (int i = 0; i < 16; i++) {
          wr.add(
              round * 16 + i,
              WrOpcode.RDMA_READ,
              WrFlags.SIGNALED,
              dst.address() + 4096L * i,
              4096,
              dst.lkey(),
              src.address() + 4096L * i,
              src.rkey());
        }
        assertEquals(PostStatus.OK, a.postSend(wr));
        for (Fabric.Wc wc : Fabric.await(cq, 16, DEADLINE)) {
          assertEquals(WcStatus.SUCCESS.code(), wc.status(), "round " + round + ": " + wc);
        }
        assertEquals(
            DataPathTest.crc(remote, 0, remote.capacity()),
            DataPathTest.crc(local, 0, local.capacity()),
            "round " + round);
      }
      assertEquals(List.of(), warnings, "a lost response is a sequence gap, not a protocol error");
    } finally {
      deviceLog.removeHandler(recorder);
    }
  }

  @Test
  void delayedFramesHoldTheStreamButEveryWorkRequestSucceedsInOrder() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      QueuePair a = f.pair(cq, 32, Fabric.LOADED).a();
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      f.provider.faults().delayFrames("soft0", 0.25, 5_000_000, 7);
      long t0 = System.nanoTime();
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(32, src, dst, 64)));
      List<Fabric.Wc> wcs = Fabric.await(cq, 32, DEADLINE);
      long ms = (System.nanoTime() - t0) / 1_000_000;
      for (int i = 0; i < 32; i++) {
        assertEquals(i, wcs.get(i).wrId());
        assertEquals(WcStatus.SUCCESS.code(), wcs.get(i).status());
      }
      assertTrue(ms >= 5, "at least one frame was held 5 ms, took " + ms);
      f.provider.faults().clearFrameFaults("soft0");
    }
  }

  @Test
  void aCompletionNotificationFiresOncePerArmingOnTheNicThread() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      QueuePair a = f.pair(cq, 8, Fabric.LOADED).a();
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      List<String> calls = new CopyOnWriteArrayList<>();
      cq.setNotificationHandler(q -> calls.add(Thread.currentThread().getName()));
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(2, src, dst, 8)));
      Fabric.await(cq, 2, DEADLINE);
      assertEquals(0, calls.size(), "not armed: no call");
      for (int round = 1; round <= 3; round++) {
        assertEquals(PostStatus.OK, cq.requestNotify());
        assertEquals(PostStatus.OK, a.postSend(Fabric.writes(4, src, dst, 8)));
        int expected = round;
        Await.untilEquals("one notification per arming", DEADLINE, expected, calls::size);
        Fabric.await(cq, 4, DEADLINE);
        assertEquals(expected, calls.size(), "four completions, one notification");
      }
      assertTrue(
          calls.stream().allMatch(t -> t.startsWith("vte-soft-nic-soft0")), calls.toString());
    }
  }

  @Test
  void anEventHandlerMayCallBackIntoVerbs() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(16);
      QueuePair a = f.pair(cq, 8, Fabric.LOADED).a();
      List<Object> done = new CopyOnWriteArrayList<>();
      f.ctx(0)
          .setAsyncEventHandler(
              e -> {
                // a handler that reacts with control-plane calls on the very thread that delivers
                // events
                if (e.type() == AsyncEventType.QP_FATAL) {
                  a.toReset();
                  a.close();
                }
                done.add(f.ctx(0).createCq(4));
                done.add(f.ctx(0).queryPort(1));
              });
      f.provider.faults().forceQpError("soft0", a.qpNum());
      Await.untilEquals("handler ran to the end", DEADLINE, 2, done::size);
      f.provider.faults().portDown("soft0", 1);
      Await.untilEquals("second event handled", DEADLINE, 4, done::size);
    }
  }

  @Test
  void cqOverflowRaisesCqErrOnceAndMovesItsQpsToErr() {
    try (Fabric f = new Fabric(2)) {
      List<AsyncEvent> events = new CopyOnWriteArrayList<>();
      f.ctx(0).setAsyncEventHandler(events::add);
      CompletionQueue tiny = f.ctx(0).createCq(4);
      QueuePair a = f.pair(tiny, 16, Fabric.FAST).a();
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(8, src, dst, 8)));
      Await.until(
          "CQ_ERR raised",
          DEADLINE,
          () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.CQ_ERR));
      Await.untilEquals("QP in ERR", DEADLINE, QpState.ERR, a::state);
      AsyncEvent e =
          events.stream().filter(x -> x.type() == AsyncEventType.CQ_ERR).findFirst().orElseThrow();
      assertEquals(tiny, e.cq());
      WorkCompletionBatch wcs = WorkCompletionBatch.allocate(16);
      assertEquals(4, tiny.poll(wcs), "the four that fit are still there");
      assertEquals(PostStatus.CQ_ERROR, tiny.poll(wcs));
      assertEquals(PostStatus.CQ_ERROR, tiny.requestNotify());
      Fabric.assertQuiet(f.ctx(1).createCq(1), Duration.ofMillis(1));
      assertEquals(1, events.stream().filter(x -> x.type() == AsyncEventType.CQ_ERR).count());
    }
  }

  @Test
  void asyncEventsAreDeliveredExactlyOnceEachOnAProviderThread() {
    try (Fabric f = new Fabric(2)) {
      List<AsyncEvent> events = new CopyOnWriteArrayList<>();
      List<String> threads = new CopyOnWriteArrayList<>();
      f.ctx(0)
          .setAsyncEventHandler(
              e -> {
                events.add(e);
                threads.add(Thread.currentThread().getName());
              });
      CompletionQueue cq = f.ctx(0).createCq(64);
      List<QueuePair> qps = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        QueuePair a = f.pair(cq, 4, 8, 4, Fabric.FAST).a();
        qps.add(a);
      }
      for (int i = 0; i < 5; i++) {
        f.provider.faults().portDown("soft0", 1);
        f.provider.faults().portDown("soft0", 1); // already down: no second event
        f.provider.faults().portUp("soft0", 1);
      }
      for (QueuePair qp : qps) {
        f.provider.faults().forceQpError("soft0", qp.qpNum());
        f.provider.faults().forceQpError("soft0", qp.qpNum()); // already in ERR: no second event
      }
      f.provider.faults().killDevice("soft0");
      f.provider.faults().killDevice("soft0");
      Await.until(
          "DEVICE_FATAL",
          DEADLINE,
          () -> events.stream().anyMatch(e -> e.type() == AsyncEventType.DEVICE_FATAL));
      Fabric.assertQuiet(
          f.ctx(1).createCq(1), Duration.ofMillis(50)); // let stragglers show up, if any
      assertEquals(
          5,
          events.stream().filter(e -> e.type() == AsyncEventType.PORT_ERR).count(),
          events.toString());
      assertEquals(5, events.stream().filter(e -> e.type() == AsyncEventType.PORT_ACTIVE).count());
      for (QueuePair qp : qps) {
        assertEquals(
            1,
            events.stream()
                .filter(e -> e.type() == AsyncEventType.QP_FATAL && e.qpNum() == qp.qpNum())
                .count());
        assertEquals(QpState.ERR, qp.state());
      }
      assertEquals(1, events.stream().filter(e -> e.type() == AsyncEventType.DEVICE_FATAL).count());
      assertEquals(5 + 5 + 3 + 1, events.size());
      assertTrue(
          threads.stream().allMatch(t -> t.startsWith("vte-soft-nic-soft0")), threads.toString());
    }
  }

  @Test
  void malformedFramesKillOnlyTheirConnection() throws Exception {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(16);
      Fabric.QpPair pair = f.pair(cq, 8, Fabric.FAST);
      QueuePair a = pair.a();
      QueuePair b = pair.b();
      MemoryRegion src = f.localMr(4096);
      ByteBuffer target = ByteBuffer.allocateDirect(4096);
      MemoryRegion dst = f.pd(1).registerMemory(target, AccessFlags.ALL_REMOTE);
      int lid = f.ctx(1).queryPort(1).lid();
      java.util.Random rnd = new java.util.Random(5);
      for (int i = 0; i < 40; i++) {
        byte[] junk = new byte[64 + rnd.nextInt(200)];
        rnd.nextBytes(junk);
        if (i % 2 == 0) {
          junk[0] =
              0x5E; // right magic, random rest: unknown opcodes, absurd lengths, bad QP numbers
        }
        if (i % 4 == 0) {
          ByteBuffer h = ByteBuffer.wrap(junk);
          h.put(1, (byte) 1)
              .putInt(4, b.qpNum())
              .putInt(12, a.qpNum())
              .putLong(16, 1); // a forged HELLO
          h.put(32, (byte) 0x5E)
              .put(33, (byte) 2)
              .putInt(36, b.qpNum())
              .putInt(56, Integer.MAX_VALUE); // absurd WRITE
        }
        try (Socket s = new Socket(InetAddress.getByName("127.0.0.2"), lid)) {
          OutputStream out = s.getOutputStream();
          out.write(junk);
          out.flush();
          s.setSoTimeout(5000);
          s.getInputStream().read(); // the NIC closes it: EOF, or a reset
        } catch (java.net.SocketException reset) {
          // closed by the NIC
        }
      }
      assertEquals(0L, target.getLong(0), "no garbage reached registered memory");
      assertEquals(PostStatus.OK, a.postSend(Fabric.writes(4, src, dst, 64)));
      for (Fabric.Wc wc : Fabric.await(cq, 4, DEADLINE)) {
        assertEquals(WcStatus.SUCCESS.code(), wc.status(), "the device still works: " + wc);
      }
    }
  }
}
