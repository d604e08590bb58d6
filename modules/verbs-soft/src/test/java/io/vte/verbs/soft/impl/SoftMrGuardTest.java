package io.vte.verbs.soft.impl;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.soft.SoftVerbsConfig;
import io.vte.verbs.soft.SoftVerbsProvider;
import io.vte.verbs.soft.SoftVerbsProviderFactory;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The region's in-use guard: close() refuses new accesses and returns only after those in progress
 * ended.
 */
class SoftMrGuardTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final int LENGTH = 4096;

  @Test
  void closeWaitsForTheAccessInProgressAndRefusesNewOnes() throws Exception {
    long memory = DirectMemory.allocate(LENGTH);
    try (SoftVerbsProvider provider =
        (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig())) {
      VerbsContext ctx = provider.open("soft0");
      ProtectionDomain pd = ctx.allocPd();
      SoftMr mr = (SoftMr) pd.registerMemory(memory, LENGTH, AccessFlags.ALL_REMOTE);
      SoftPd softPd = (SoftPd) pd;
      assertTrue(mr.acquire());
      AtomicBoolean closed = new AtomicBoolean();
      Thread closer =
          new Thread(
              () -> {
                mr.close();
                closed.set(true);
              },
              "mr-closer");
      closer.start();
      // parked in its wait loop: past the closed mark, still waiting for the access
      Await.until("closer waits", DEADLINE, () -> closer.getState() == Thread.State.TIMED_WAITING);
      assertFalse(closed.get(), "close() returned while an access was in progress");
      assertFalse(mr.acquire(), "a new access was granted after close() started");
      assertFalse(mr.permits(softPd, 0, memory, 1));
      mr.release();
      Await.until("close() returns once the access ended", DEADLINE, closed::get);
      closer.join(DEADLINE.toMillis());
      assertFalse(mr.acquire());
    } finally {
      DirectMemory.free(memory);
    }
  }

  @Test
  void racingAccessesNeverOverlapTheReturnOfClose() throws Exception {
    long memory = DirectMemory.allocate(LENGTH);
    try (SoftVerbsProvider provider =
        (SoftVerbsProvider) new SoftVerbsProviderFactory().create(new SoftVerbsConfig())) {
      ProtectionDomain pd = provider.open("soft0").allocPd();
      AtomicInteger lateAccesses = new AtomicInteger();
      for (int round = 0; round < 500; round++) {
        SoftMr mr = (SoftMr) pd.registerMemory(memory, LENGTH, AccessFlags.ALL_REMOTE);
        AtomicBoolean closeReturned = new AtomicBoolean();
        CyclicBarrier start = new CyclicBarrier(2);
        Thread user =
            new Thread(
                () -> {
                  await(start);
                  while (mr.acquire()) {
                    if (closeReturned.get()) {
                      lateAccesses.incrementAndGet();
                    }
                    mr.release();
                  }
                },
                "mr-user");
        user.start();
        await(start);
        mr.close();
        closeReturned.set(true);
        user.join(DEADLINE.toMillis());
        assertFalse(user.isAlive(), "round " + round + ": acquire() kept succeeding after close()");
      }
      assertTrue(
          lateAccesses.get() == 0,
          lateAccesses.get() + " accesses were in progress after close() returned");
    } finally {
      DirectMemory.free(memory);
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
