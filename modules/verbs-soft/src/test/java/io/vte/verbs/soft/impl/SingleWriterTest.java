package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.QueuePairs;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The soft NIC is single-writer: the device's NIC thread alone reads and writes each connection.
 * Posters and CQ consumers only hand work over and take completions, so while the NIC thread is
 * held no byte moves, whoever posts and polls; many concurrent posters and pollers never make a
 * second thread touch a connection (counted by the connection's assertion hook).
 */
class SingleWriterTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final int DEPTH = 64;
  private static final int SIZE = 4096;

  private SoftVerbsProvider provider;
  private SoftDevice initiator;
  private CompletionQueue cq;
  private QueuePair qp;
  private MemoryRegion src;
  private MemoryRegion dst;
  private final WorkCompletionBatch completions = WorkCompletionBatch.allocate(16);

  /**
   * 4.096 us x 2^22 = 17 s before a resend, longer than {@link #NOTIFIED}: a response comes only
   * from a read, never from a resend.
   */
  private static final int PATIENT = 22;

  /** How long a notification may take: far longer than a loopback round trip, shorter than 17 s. */
  private static final Duration NOTIFIED = Duration.ofSeconds(8);

  /** 4.096 us x 2^16 = 268 ms before a resend: a lost last frame costs little. */
  private static final int PROMPT = 16;

  @BeforeEach
  void open() {
    provider = (SoftVerbsProvider) new SoftVerbsProviderFactory().create(Map.of());
    initiator = (SoftDevice) provider.open("soft0");
  }

  /** A QP on soft0 completing into {@link #cq}, connected to one on soft1 (3 retries). */
  private void connect(int timeoutExponent) {
    SoftDevice responder = (SoftDevice) provider.open("soft1");
    ProtectionDomain pdA = initiator.allocPd();
    ProtectionDomain pdB = responder.allocPd();
    cq = initiator.createCq(DEPTH);
    qp = pdA.createQp(new QpInitAttributes(cq, cq, DEPTH, DEPTH, 64));
    CompletionQueue peerCq = responder.createCq(16);
    QueuePair peer = pdB.createQp(new QpInitAttributes(peerCq, peerCq, 8, 8, 64));
    QueuePairs.connectInProcess(
        qp,
        initiator,
        new RtsAttributes(200, timeoutExponent, 3, 0),
        peer,
        responder,
        new RtsAttributes(100, timeoutExponent, 3, 0));
    src = pdA.registerMemory(ByteBuffer.allocateDirect(DEPTH * SIZE), AccessFlags.LOCAL_WRITE);
    dst = pdB.registerMemory(ByteBuffer.allocateDirect(DEPTH * SIZE), AccessFlags.ALL_REMOTE);
  }

  @AfterEach
  void close() {
    provider.close();
  }

  /** Posts {@code n} signaled 4 KiB WRITEs, wr ids {@code first..first+n-1}. */
  private void postWrites(long first, int n) {
    WorkRequestBatch wr = WorkRequestBatch.allocate(n);
    for (int i = 0; i < n; i++) {
      int slot = (int) ((first + i) % DEPTH);
      wr.add(
          first + i,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          src.address() + (long) slot * SIZE,
          SIZE,
          src.lkey(),
          dst.address() + (long) slot * SIZE,
          dst.rkey());
    }
    assertEquals(PostStatus.OK, qp.postSend(wr));
  }

  /** Polls without arming until {@code n} completions came, each a success, in wr-id order. */
  private void pollUntil(long first, int n) {
    List<Long> ids = new ArrayList<>();
    long end = System.nanoTime() + DEADLINE.toNanos();
    while (ids.size() < n) {
      if (pollOnce(ids) == 0 && System.nanoTime() - end > 0) {
        throw new AssertionError(ids.size() + " of " + n + " completions after " + DEADLINE);
      }
    }
    assertInOrder(first, n, ids);
  }

  /**
   * One progress and poll: adds the wr ids it returned (each a success) to {@code ids}; returns how
   * many.
   */
  private int pollOnce(List<Long> ids) {
    cq.progress();
    WorkCompletionBatch b = completions;
    int k = cq.poll(b);
    assertTrue(k >= 0, "poll: " + PostStatus.name(k));
    for (int i = 0; i < k; i++) {
      assertEquals(WcStatus.SUCCESS.code(), b.status(i), "wr " + b.wrId(i));
      ids.add(b.wrId(i));
    }
    return k;
  }

  private static void assertInOrder(long first, int n, List<Long> ids) {
    assertEquals(n, ids.size(), "each once: " + ids);
    for (int i = 0; i < n; i++) {
      assertEquals(first + i, ids.get(i), "in order: " + ids);
    }
  }

  /**
   * Arms the CQ and collects {@code n} completions without polling for them: after each arming, one
   * poll takes what had landed, then only a notification may say that more did.
   */
  private void awaitByNotification(Semaphore notified, long first, int n, String what)
      throws InterruptedException {
    List<Long> ids = new ArrayList<>();
    long end = System.nanoTime() + DEADLINE.toNanos();
    while (true) {
      notified.drainPermits();
      assertEquals(PostStatus.OK, cq.requestNotify());
      while (pollOnce(ids) > 0) {
        // what landed before the arming
      }
      if (ids.size() >= n) {
        break;
      }
      long left = Math.min(NOTIFIED.toNanos(), end - System.nanoTime());
      assertTrue(
          notified.tryAcquire(Math.max(1, left), TimeUnit.NANOSECONDS),
          what + ": " + ids.size() + " of " + n + " completions, then no notification");
    }
    assertInOrder(first, n, ids);
  }

  /**
   * Holds the initiator's NIC thread in a command until the returned latch is counted down: no
   * response can be read by it meanwhile.
   */
  private CountDownLatch holdNic() throws InterruptedException {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    initiator
        .nic()
        .execute(
            () -> {
              held.countDown();
              try {
                release.await(); // until the test releases it, passed or failed
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            });
    assertTrue(held.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS), "NIC thread held");
    return release;
  }

  @Test
  void whileTheNicThreadIsHeldNoPosterOrPollerMovesAByte() throws Exception {
    connect(PATIENT);
    postWrites(0, 8);
    pollUntil(0, 8); // the NIC thread has opened the connection
    for (int round = 0; round < 5; round++) {
      long first = 8 + round * 8L;
      CountDownLatch release = holdNic();
      try {
        postWrites(first, 8);
        long end = System.nanoTime() + Duration.ofMillis(100).toNanos();
        while (System.nanoTime() < end) {
          assertEquals(0, cq.progress(), "progress moved bytes");
          assertEquals(0, cq.poll(completions), "a completion without the NIC thread");
          Thread.yield();
        }
      } finally {
        release.countDown();
      }
      pollUntil(first, 8); // the NIC thread sends and reads what waited
    }
  }

  @Test
  void anArmedCqIsNotifiedByTheNicThread() throws Exception {
    connect(PATIENT);
    Semaphore notified = new Semaphore(0);
    cq.setNotificationHandler(c -> notified.release());
    long next = 0;
    for (int round = 0; round < 30; round++) {
      postWrites(next, 4);
      awaitByNotification(notified, next, 4, "round " + round);
      next += 4;
    }
  }

  @Test
  void lostFramesAreResentWhoeverReadsAndEveryWriteCompletesOnceInOrder() throws Exception {
    connect(PROMPT);
    initiator.setFrameFaults(0.02, 0, 0, 7);
    Semaphore notified = new Semaphore(0);
    cq.setNotificationHandler(c -> notified.release());
    long next = 0;
    for (int round = 0; round < 60; round++) {
      postWrites(next, 16);
      if (round % 2 == 0) {
        pollUntil(next, 16);
      } else {
        awaitByNotification(notified, next, 16, "round " + round);
      }
      next += 16;
    }
  }

  @Test
  void manyPostersAndPollersNeverMakeASecondThreadTouchAConnection() throws Exception {
    assertTrue(
        Connection.class.desiredAssertionStatus(), "the hook counts only with assertions on (-ea)");
    int before = Connection.crossThreadTouches();
    SoftDevice responder = (SoftDevice) provider.open("soft1");
    ProtectionDomain pdA = initiator.allocPd();
    ProtectionDomain pdB = responder.allocPd();
    MemoryRegion source =
        pdA.registerMemory(ByteBuffer.allocateDirect(SIZE), AccessFlags.LOCAL_WRITE);
    MemoryRegion target =
        pdB.registerMemory(ByteBuffer.allocateDirect(SIZE), AccessFlags.ALL_REMOTE);
    int cqs = 2;
    int qpsPerCq = 2;
    int postersPerQp = 3;
    int rounds = 150;
    CompletionQueue[] rings = new CompletionQueue[cqs];
    List<QueuePair> qps = new ArrayList<>();
    for (int c = 0; c < cqs; c++) {
      rings[c] = initiator.createCq(DEPTH * qpsPerCq);
      for (int q = 0; q < qpsPerCq; q++) {
        QueuePair a = pdA.createQp(new QpInitAttributes(rings[c], rings[c], DEPTH, 1, 0));
        CompletionQueue peerCq = responder.createCq(4);
        QueuePair b = pdB.createQp(new QpInitAttributes(peerCq, peerCq, 1, 1, 0));
        RtsAttributes rts = new RtsAttributes(1, PROMPT, 7, 7);
        QueuePairs.connectInProcess(a, initiator, rts, b, responder, rts);
        qps.add(a);
      }
    }
    int posters = qps.size() * postersPerQp;
    CyclicBarrier barrier = new CyclicBarrier(posters + cqs);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
    for (int p = 0; p < posters; p++) {
      QueuePair target0 = qps.get(p % qps.size());
      threads.add(
          new Thread(
              () -> {
                WorkRequestBatch wr = WorkRequestBatch.allocate(1);
                try {
                  for (int r = 0; r < rounds; r++) {
                    barrier.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                    wr.clear();
                    wr.add(
                        r,
                        WrOpcode.RDMA_WRITE,
                        WrFlags.SIGNALED,
                        source.address(),
                        64,
                        source.lkey(),
                        target.address(),
                        target.rkey());
                    assertEquals(PostStatus.OK, target0.postSend(wr));
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "poster-" + p));
    }
    int perCq = qpsPerCq * postersPerQp;
    for (int c = 0; c < cqs; c++) {
      CompletionQueue ring = rings[c];
      threads.add(
          new Thread(
              () -> {
                WorkCompletionBatch wcs = WorkCompletionBatch.allocate(16);
                try {
                  for (int r = 0; r < rounds; r++) {
                    barrier.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                    int got = 0;
                    long end = System.nanoTime() + DEADLINE.toNanos();
                    while (got < perCq) {
                      ring.progress();
                      int n = ring.poll(wcs);
                      assertTrue(n >= 0, "poll: " + PostStatus.name(n));
                      for (int i = 0; i < n; i++) {
                        assertEquals(WcStatus.SUCCESS.code(), wcs.status(i), "round " + r);
                      }
                      got += n;
                      assertTrue(System.nanoTime() - end < 0, got + " of " + perCq + " in time");
                    }
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "poller-" + c));
    }
    threads.forEach(Thread::start);
    for (Thread t : threads) {
      t.join(DEADLINE.toMillis() * 2);
      assertFalse(t.isAlive(), t.getName() + " still runs");
    }
    assertEquals(List.of(), failures);
    assertEquals(
        before,
        Connection.crossThreadTouches(),
        "a connection touched by two threads: " + Connection.firstCrossThreadTouch());
  }
}
