package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A consumer progressing its CQ reads the responses of the QPs that send into it itself, so their
 * completions need no NIC thread; arming the CQ hands that reading back to the NIC thread, which
 * then wakes the consumer. A poll alone reads no socket.
 */
class PolledResponsesTest {

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
    provider = (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig());
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
  void aPollingConsumerCompletesWritesWhileItsNicThreadIsHeld() throws Exception {
    connect(PATIENT);
    postWrites(0, 8);
    pollUntil(0, 8); // the NIC thread has opened the connection
    CountDownLatch release = holdNic();
    try {
      long next = 8;
      for (int round = 0; round < 50; round++) {
        postWrites(next, 8); // the poster writes the frames itself on an idle wire
        pollUntil(next, 8); // and only this thread can read the ACKs
        next += 8;
      }
    } finally {
      release.countDown();
    }
  }

  @Test
  void aPollWithoutProgressReadsNoSocket() throws Exception {
    connect(PATIENT);
    postWrites(0, 8);
    pollUntil(0, 8); // the NIC thread has opened the connection
    CountDownLatch release = holdNic();
    try {
      postWrites(8, 8); // the poster writes the frames itself on an idle wire
      long end = System.nanoTime() + Duration.ofMillis(300).toNanos();
      while (System.nanoTime() < end) {
        assertEquals(0, cq.poll(completions), "a poll took a completion no thread could read");
        Thread.yield();
      }
      pollUntil(8, 8); // progress reads the ACKs that waited
    } finally {
      release.countDown();
    }
  }

  @Test
  void armingHandsTheReadingBackAndTheNicWakesTheConsumerAtOnce() throws Exception {
    connect(PATIENT);
    Semaphore notified = new Semaphore(0);
    cq.setNotificationHandler(c -> notified.release());
    postWrites(0, 4);
    pollUntil(0, 4); // the NIC thread has opened the connection
    long next = 4;
    long[] armedRounds = new long[30];
    for (int round = 0; round < armedRounds.length; round++) {
      CountDownLatch release = holdNic();
      try {
        postWrites(next, 4);
        pollUntil(next, 4); // the NIC is held: the reading is this thread's now
      } finally {
        release.countDown();
      }
      next += 4;
      // armed: only the NIC thread may read the ACKs now, and its first completion must wake us
      // (which disarms the CQ, so that the next round's polls read again)
      notified.drainPermits();
      assertEquals(PostStatus.OK, cq.requestNotify());
      long start = System.nanoTime();
      postWrites(next, 4);
      assertTrue(
          notified.tryAcquire(NOTIFIED.toMillis(), TimeUnit.MILLISECONDS),
          "round " + round + ": no notification after the arming");
      armedRounds[round] = System.nanoTime() - start;
      pollUntil(next, 4);
      next += 4;
    }
    // handed back at the arming, not taken back once the consumer had been quiet for a while
    Arrays.sort(armedRounds);
    long median = armedRounds[armedRounds.length / 2];
    assertTrue(
        median < RequesterAccess.POLLER_QUIET_NANOS,
        "median armed round " + median / 1000 + " us: the NIC read at once after the arming");
  }

  @Test
  void lostFramesAreResentWhoeverReadsAndEveryWriteCompletesOnceInOrder() throws Exception {
    connect(PROMPT);
    initiator.faults().setFrameFaults(0.02, 0, 0, 7);
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
}
