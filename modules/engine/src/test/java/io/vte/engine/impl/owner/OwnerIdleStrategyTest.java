package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The owner's choice between another cycle and a sleep, driven with a fake clock. */
class OwnerIdleStrategyTest {

  private static final long US = 1_000;

  @Test
  void withWorkRequestsInFlightItPollsUntilTheWindowAfterTheLastWorkHasPassed() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(100 * US, 1, 20);
    long now = 5_000_000;
    assertTrue(idle.runAgain(3, true, now), "a cycle that did work runs again");
    int cycles = 0;
    while (idle.runAgain(0, true, now += US)) {
      cycles++;
    }
    assertEquals(99, cycles, "polled every microsecond for 100 us after the last work");
    assertEquals(1, idle.sleepMillis(true), "work in flight sleeps the shortest back-off");
  }

  @Test
  void workWithinTheWindowStartsItAgain() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(100 * US, 1, 20);
    long now = 0;
    idle.runAgain(1, true, now);
    assertTrue(idle.runAgain(0, true, now += 90 * US));
    assertTrue(idle.runAgain(1, true, now += 5 * US), "a completion reaped while polling");
    for (int i = 0; i < OwnerIdleStrategy.MIN_SPIN_CYCLES; i++) {
      idle.runAgain(0, true, now += US);
    }
    assertTrue(
        idle.runAgain(0, true, now += 80 * US), "95 us after the last work: still in the window");
    assertFalse(idle.runAgain(0, true, now += 20 * US), "115 us after it: sleep");
  }

  @Test
  void withoutWorkRequestsInFlightItSleepsAtOnceWithAGrowingBackOff() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(100 * US, 1, 20);
    assertFalse(idle.runAgain(0, false, 0), "no poll window without work requests on the wire");
    assertEquals(1, idle.sleepMillis(false));
    assertEquals(2, idle.sleepMillis(false));
    assertEquals(4, idle.sleepMillis(false));
    assertEquals(8, idle.sleepMillis(false));
    assertEquals(16, idle.sleepMillis(false));
    assertEquals(20, idle.sleepMillis(false), "bounded by the longest back-off");
    assertEquals(20, idle.sleepMillis(false));
    idle.runAgain(1, false, 0);
    assertEquals(1, idle.sleepMillis(false), "work resets the back-off");
  }

  @Test
  void aZeroWindowPollsTheMinimumEmptyCyclesOnly() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(0, 1, 20);
    long now = 0;
    idle.runAgain(1, true, now);
    int cycles = 0;
    while (idle.runAgain(0, true, now)) {
      cycles++;
    }
    assertEquals(OwnerIdleStrategy.MIN_SPIN_CYCLES - 1, cycles);
  }

  @Test
  void afterASleepTheMinimumCyclesCountAgain() {
    OwnerIdleStrategy idle = new OwnerIdleStrategy(0, 1, 20);
    long now = 0;
    while (idle.runAgain(0, true, now)) {
      now += US;
    }
    idle.sleepMillis(true);
    assertTrue(
        idle.runAgain(0, true, now), "woken by its timer: it polls a few cycles before it sleeps");
  }
}
