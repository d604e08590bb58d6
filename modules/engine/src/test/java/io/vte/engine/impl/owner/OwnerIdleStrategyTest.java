package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.engine.impl.owner.runtime.OwnerIdleStrategy;
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
  void withNothingOnTheWireItPollsTheWindowAfterItsLastWorkWithoutTheMinimumCycles() {
    SpinBudget budget = new SpinBudget(1);
    OwnerIdleStrategy idle = new OwnerIdleStrategy(budget, 100 * US, 1, 20);
    long now = 7_000_000;
    assertTrue(idle.runAgain(1, 0, now), "the cycle that completed the last request");
    int cycles = 0;
    while (idle.runAgain(0, 0, now += 10 * US)) {
      assertEquals(0, budget.free(), "polling holds the token");
      cycles++;
    }
    assertEquals(9, cycles, "polled 100 us after the last work, for a submission to find it awake");
    assertEquals(1, budget.free(), "the token is back once it stops");
    OwnerIdleStrategy noWindow = new OwnerIdleStrategy(new SpinBudget(1), 0, 1, 20);
    noWindow.runAgain(1, 0, now);
    assertFalse(noWindow.runAgain(0, 0, now), "no window: nothing on the wire sleeps at once");
  }

  @Test
  void anOwnerPollingWithNothingOnTheWireGivesItsTokenToOneWithWorkOnTheWire() {
    SpinBudget budget = new SpinBudget(1);
    OwnerIdleStrategy idle = new OwnerIdleStrategy(budget, 100 * US, 1, 20);
    OwnerIdleStrategy busy = new OwnerIdleStrategy(budget, 100 * US, 1, 20);
    long now = 2_000_000;
    idle.runAgain(1, 0, now);
    assertTrue(idle.runAgain(0, 0, now += US), "polls for a submission, holding the token");
    now = workThenMinimumCycles(busy, now);
    assertFalse(busy.runAgain(0, SMALL, now), "no token free: it asks and sleeps");
    assertFalse(idle.runAgain(0, 0, now += US), "asked for: the idle one gives its token up");
    assertEquals(1, budget.free());
    now = workThenMinimumCycles(busy, now);
    assertTrue(busy.runAgain(0, SMALL, now += US), "the owner with work on the wire polls now");

    SpinBudget other = new SpinBudget(1);
    OwnerIdleStrategy onWire = new OwnerIdleStrategy(other, 100 * US, 1, 20);
    now = workThenMinimumCycles(onWire, now);
    assertTrue(onWire.runAgain(0, SMALL, now += US));
    assertFalse(other.tryAcquire());
    assertTrue(onWire.runAgain(0, SMALL, now += US), "with work on the wire it keeps its token");
  }

  /** A cycle with work and the empty ones that always follow it with work on the wire. */
  private static long workThenMinimumCycles(OwnerIdleStrategy idle, long now) {
    assertTrue(idle.runAgain(1, SMALL, now));
    for (int i = 1; i < OwnerIdleStrategy.MIN_SPIN_CYCLES; i++) {
      assertTrue(idle.runAgain(0, SMALL, now += US), "minimum cycle " + i);
    }
    return now;
  }

  @Test
  void afterArmingItRunsAgainOnlyWhenThatCycleFoundWork() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 100 * US, 1, 20);
    long now = 3_000_000;
    idle.runAgain(1, 2 * OwnerIdleStrategy.BUSY_POLL_MAX_BYTES, now);
    assertFalse(
        idle.runAgainAfterArming(0, now + US),
        "within the window, but an empty cycle after arming sleeps (the CQ wakes it)");
    assertTrue(idle.runAgainAfterArming(2, now + 2 * US), "a completion landed before the arming");
  }

  @Test
  void withoutWorkEverItSleepsAtOnceWithAGrowingBackOff() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(new SpinBudget(1), 100 * US, 1, 20);
    assertFalse(idle.runAgain(0, 0, 0), "no poll window before any work");
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
