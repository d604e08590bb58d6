package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.SpinBudget;
import org.junit.jupiter.api.Test;

/** The owner's choice between another cycle and a sleep, driven with a fake clock. */
class OwnerIdleStrategyTest {

  private static final long US = 1_000;

  /** Bytes on the wire of a few small requests. */
  private static final long SMALL = 8 * 4096;

  @Test
  void withWorkRequestsInFlightItPollsUntilTheWindowAfterTheLastWorkHasPassed() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 100 * US, 1, 20);
    long now = 5_000_000;
    assertTrue(idle.runAgain(3, SMALL, now), "a cycle that did work runs again");
    int cycles = 0;
    while (idle.runAgain(0, SMALL, now += US)) {
      cycles++;
    }
    assertEquals(99, cycles, "polled every microsecond for 100 us after the last work");
    assertEquals(1, idle.sleepMillis(true), "work in flight sleeps the shortest back-off");
  }

  @Test
  void onlyACycleAfterAnEmptyOneYieldsTheCore() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 100 * US, 1, 20);
    long now = 0;
    assertTrue(idle.runAgain(2, SMALL, now));
    assertFalse(idle.yieldsBeforeNextCycle(), "work found: the next cycle runs at once");
    assertTrue(idle.runAgain(0, SMALL, now += US));
    assertTrue(idle.yieldsBeforeNextCycle(), "an empty cycle among the minimum ones");
    for (int i = 0; i < OwnerIdleStrategy.MIN_SPIN_CYCLES; i++) {
      assertTrue(idle.runAgain(0, SMALL, now += US));
    }
    assertTrue(idle.yieldsBeforeNextCycle(), "busy-polling with the token");
    assertTrue(idle.runAgain(1, SMALL, now += US));
    assertFalse(idle.yieldsBeforeNextCycle(), "a completion was reaped: more may be waiting");
    while (idle.runAgain(0, SMALL, now += 10 * US)) {
      assertTrue(idle.yieldsBeforeNextCycle());
    }
    idle.sleepMillis(true);
    assertFalse(idle.yieldsBeforeNextCycle(), "a woken owner's first cycle runs at once");
  }

  @Test
  void workWithinTheWindowStartsItAgain() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 100 * US, 1, 20);
    long now = 0;
    idle.runAgain(1, SMALL, now);
    assertTrue(idle.runAgain(0, SMALL, now += 90 * US));
    assertTrue(idle.runAgain(1, SMALL, now += 5 * US), "a completion reaped while polling");
    for (int i = 0; i < OwnerIdleStrategy.MIN_SPIN_CYCLES; i++) {
      idle.runAgain(0, SMALL, now += US);
    }
    assertTrue(
        idle.runAgain(0, SMALL, now += 80 * US), "95 us after the last work: still in the window");
    assertFalse(idle.runAgain(0, SMALL, now += 20 * US), "115 us after it: sleep");
  }

  @Test
  void withMoreThanTheBusyPollBytesOnTheWireItPollsTheMinimumEmptyCyclesOnly() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 100 * US, 1, 20);
    long now = 0;
    long large = OwnerIdleStrategy.BUSY_POLL_MAX_BYTES + 1;
    idle.runAgain(1, large, now);
    int cycles = 0;
    while (idle.runAgain(0, large, now += US)) {
      cycles++;
    }
    assertEquals(OwnerIdleStrategy.MIN_SPIN_CYCLES - 1, cycles);
    idle.sleepMillis(true);
    idle.runAgain(1, OwnerIdleStrategy.BUSY_POLL_MAX_BYTES, now);
    assertTrue(
        idle.runAgain(0, OwnerIdleStrategy.BUSY_POLL_MAX_BYTES, now + 50 * US),
        "at the bound it polls for the whole window");
  }

  @Test
  void ownersBeyondTheSpinBudgetSleepAfterTheMinimumCyclesUntilATokenIsFree() {
    SpinBudget budget = new SpinBudget(1);
    OwnerIdleStrategy first = new OwnerIdleStrategy(budget, 100 * US, 1, 20);
    OwnerIdleStrategy second = new OwnerIdleStrategy(budget, 100 * US, 1, 20);
    long now = 0;
    first.runAgain(1, SMALL, now);
    second.runAgain(1, SMALL, now);
    for (int i = 1; i < OwnerIdleStrategy.MIN_SPIN_CYCLES; i++) {
      assertTrue(first.runAgain(0, SMALL, now += US));
      assertTrue(second.runAgain(0, SMALL, now));
    }
    assertTrue(first.runAgain(0, SMALL, now += US), "the first takes the only token");
    assertEquals(0, budget.free());
    assertFalse(second.runAgain(0, SMALL, now), "the second is within its window, but no token");
    second.sleepMillis(true);
    assertEquals(0, budget.free(), "a sleep without a token gives none back");
    assertTrue(first.runAgain(0, SMALL, now += 10 * US), "the first polls on");
    assertFalse(first.runAgain(0, SMALL, now += 100 * US), "its window has passed");
    assertEquals(1, budget.free(), "leaving the window gives the token back");
    second.runAgain(1, SMALL, now);
    for (int i = 1; i < OwnerIdleStrategy.MIN_SPIN_CYCLES; i++) {
      second.runAgain(0, SMALL, now += US);
    }
    assertTrue(second.runAgain(0, SMALL, now += US), "now the second gets it");
    second.stopPolling();
    second.stopPolling();
    assertEquals(1, budget.free(), "stopping twice gives it back once");
  }

  @Test
  void withoutWorkRequestsInFlightItSleepsAtOnceWithAGrowingBackOff() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 100 * US, 1, 20);
    assertFalse(idle.runAgain(0, 0, 0), "no poll window without work requests on the wire");
    assertEquals(1, idle.sleepMillis(false));
    assertEquals(2, idle.sleepMillis(false));
    assertEquals(4, idle.sleepMillis(false));
    assertEquals(8, idle.sleepMillis(false));
    assertEquals(16, idle.sleepMillis(false));
    assertEquals(20, idle.sleepMillis(false), "bounded by the longest back-off");
    assertEquals(20, idle.sleepMillis(false));
    idle.runAgain(1, 0, 0);
    assertEquals(1, idle.sleepMillis(false), "work resets the back-off");
  }

  @Test
  void aZeroWindowPollsTheMinimumEmptyCyclesOnly() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 0, 1, 20);
    long now = 0;
    idle.runAgain(1, SMALL, now);
    int cycles = 0;
    while (idle.runAgain(0, SMALL, now)) {
      cycles++;
    }
    assertEquals(OwnerIdleStrategy.MIN_SPIN_CYCLES - 1, cycles);
  }

  @Test
  void afterASleepTheMinimumCyclesCountAgain() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 0, 1, 20);
    long now = 0;
    while (idle.runAgain(0, SMALL, now)) {
      now += US;
    }
    idle.sleepMillis(true);
    assertTrue(
        idle.runAgain(0, SMALL, now), "woken by its timer: it polls a few cycles before it sleeps");
  }
}
