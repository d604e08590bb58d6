package io.vte.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A spin budget hands out at most its tokens, however many threads ask at once. */
class SpinBudgetTest {

  @Test
  void itNeedsATokenAndCountsThem() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new SpinBudget(0));
    assertEquals("a spin budget needs at least 1 token, got 0", e.getMessage());
    SpinBudget budget = new SpinBudget(2);
    assertTrue(budget.tryAcquire());
    assertTrue(budget.tryAcquire());
    assertFalse(budget.tryAcquire());
    budget.release();
    assertEquals(1, budget.free());
    int processors = Runtime.getRuntime().availableProcessors();
    assertEquals(Math.max(1, processors / 2), SpinBudget.halfTheProcessors().free());
  }

  @Test
  void aFailedAskMarksItWantedUntilATokenIsHandedOut() {
    SpinBudget budget = new SpinBudget(1);
    assertFalse(budget.isWanted());
    assertTrue(budget.tryAcquire());
    assertFalse(budget.isWanted(), "a granted ask wants nothing more");
    assertFalse(budget.tryAcquire());
    assertTrue(budget.isWanted(), "someone asked and found none free");
    budget.release();
    assertTrue(budget.isWanted(), "still wanted until the asker gets it");
    assertTrue(budget.tryAcquire());
    assertFalse(budget.isWanted());
  }

  @Test
  void threadsAskingAtOnceNeverHoldMoreThanTheTokens() throws Exception {
    SpinBudget budget = new SpinBudget(2);
    int threads = 6;
    CyclicBarrier barrier = new CyclicBarrier(threads);
    AtomicInteger holding = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    Thread[] all = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      all[t] =
          new Thread(
              () -> {
                for (int round = 0; round < 2000; round++) {
                  try {
                    if (round % 100 == 0) {
                      barrier.await();
                    }
                  } catch (Exception ex) {
                    throw new IllegalStateException(ex);
                  }
                  if (budget.tryAcquire()) {
                    most.accumulateAndGet(holding.incrementAndGet(), Math::max);
                    holding.decrementAndGet();
                    budget.release();
                  }
                }
              });
      all[t].start();
    }
    for (Thread t : all) {
      t.join();
    }
    assertTrue(most.get() <= 2, "at most 2 held at once, saw " + most.get());
    assertEquals(2, budget.free(), "every token came back");
  }
}
