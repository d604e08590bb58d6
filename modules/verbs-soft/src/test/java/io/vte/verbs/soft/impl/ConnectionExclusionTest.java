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
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import io.vte.verbs.soft.impl.wire.OneThreadInside;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A requester's connection is driven by up to three threads (the NIC thread, a poster writing on an
 * idle wire, the send CQ's consumer reading responses in {@code progress()}), never two at once:
 * many concurrent posters and progressing pollers, released together by a barrier round after
 * round, never find another thread inside a connection (counted by its assertion hook).
 */
class ConnectionExclusionTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final int DEPTH = 64;
  private static final int SIZE = 4096;

  /** 4.096 us x 2^16 = 268 ms before a resend. */
  private static final int PROMPT = 16;

  private final SoftVerbsProvider provider =
      (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig());

  @AfterEach
  void close() {
    provider.close();
  }

  @Test
  void manyPostersAndPollersNeverHaveTwoThreadsInsideAConnection() throws Exception {
    assertTrue(
        OneThreadInside.class.desiredAssertionStatus(),
        "the hook counts only with assertions on (-ea)");
    int before = OneThreadInside.overlaps();
    SoftDevice initiator = (SoftDevice) provider.open("soft0");
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
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
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
        OneThreadInside.overlaps(),
        "two threads inside a connection: " + OneThreadInside.firstOverlap());
  }
}
