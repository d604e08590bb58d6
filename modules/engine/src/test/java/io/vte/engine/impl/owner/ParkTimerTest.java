package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Handler;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ParkTimer} over fake timers and a fake clock. */
class ParkTimerTest {

  /** Timers that fire only when the test says so. */
  private static final class FakeTimers implements ParkTimer.Timers {
    final Map<Long, Handler<Long>> pending = new HashMap<>();
    final Map<Long, Long> delays = new HashMap<>();
    long nextId = 7;
    int sets;
    int cancels;

    @Override
    public long set(long delayMs, Handler<Long> fired) {
      sets++;
      long id = nextId++;
      pending.put(id, fired);
      delays.put(id, delayMs);
      return id;
    }

    @Override
    public boolean cancel(long id) {
      cancels++;
      return pending.remove(id) != null;
    }

    void fire(long id, Handler<Long> handler) {
      pending.remove(id);
      handler.handle(id);
    }
  }

  private final FakeTimers timers = new FakeTimers();
  private long now = 1_000_000_000L;
  private int fired;
  private final ParkTimer timer = new ParkTimer(timers, () -> now, () -> fired++);

  @Test
  void parkingAThousandTimesWithinOnePeriodSetsOneTimer() {
    for (int i = 0; i < 1000; i++) {
      timer.wakeWithin(1);
      now += 500; // woken by the CQ half a microsecond later, parks again
    }
    assertEquals(1, timers.sets, "one timer for a thousand parks");
    assertEquals(0, timers.cancels);
    assertTrue(timer.isPending());
  }

  @Test
  void aSoonerWakeUpReplacesThePendingTimerALaterOneDoesNot() {
    timer.wakeWithin(100);
    timer.wakeWithin(200);
    assertEquals(1, timers.sets, "a later wake-up keeps the timer due sooner");
    timer.wakeWithin(1);
    assertEquals(2, timers.sets);
    assertEquals(1, timers.cancels, "the later timer is cancelled");
    assertEquals(1, timers.pending.size());
    assertEquals(1L, timers.delays.get(timers.pending.keySet().iterator().next()));
  }

  @Test
  void aFiredTimerRunsOnceAndTheNextParkSetsANewOne() {
    timer.wakeWithin(1);
    long id = timers.pending.keySet().iterator().next();
    now += 1_000_000;
    timers.fire(id, timers.pending.get(id));
    assertEquals(1, fired);
    assertFalse(timer.isPending());
    timer.wakeWithin(1);
    assertEquals(2, timers.sets, "a fired timer is not counted as pending");
  }

  @Test
  void aReplacedTimerThatFiresAnywayIsIgnored() {
    timer.wakeWithin(50);
    long first = timers.pending.keySet().iterator().next();
    Handler<Long> late = timers.pending.get(first);
    timer.wakeWithin(1);
    late.handle(first); // its cancel came too late: it fired on the loop before the cancel
    assertEquals(0, fired, "the replaced timer does not run a cycle");
    assertTrue(timer.isPending(), "the replacement is still pending");
  }

  @Test
  void cancelLeavesNoTimer() {
    timer.wakeWithin(5);
    timer.cancel();
    assertFalse(timer.isPending());
    assertTrue(timers.pending.isEmpty());
    timer.cancel();
    assertEquals(1, timers.cancels, "cancel without a pending timer calls nothing");
  }
}
