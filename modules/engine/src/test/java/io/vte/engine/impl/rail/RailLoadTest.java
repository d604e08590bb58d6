package io.vte.engine.impl.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class RailLoadTest {

  private static final int SLICE = 64 << 10;
  private static final long WINDOW = 1_000_000L;

  /** 10 ns per byte: one slice every 655 µs. */
  private static final long EVERY = SLICE * 10L;

  private final RailLoad load = new RailLoad(WINDOW);
  private long now = 1_000_000_000L;

  /**
   * Keeps {@code depth} slices outstanding, completing one every {@code every} ns, {@code n} times.
   */
  private void steady(int depth, long every, int n) {
    while (load.outstanding() < (long) depth * SLICE) {
      load.acquire(SLICE, now);
    }
    for (int i = 0; i < n; i++) {
      now += every;
      load.release(SLICE, true, now);
      load.acquire(SLICE, now);
    }
  }

  @Test
  void measuresTheRateBetweenCompletionsNotTheLatencyBeforeTheFirst() {
    load.acquire(SLICE, now);
    load.acquire(SLICE, now);
    now += 1_000_000_000L; // a handshake: a second before the first completion
    load.release(SLICE, true, now);
    load.acquire(SLICE, now);
    steady(2, EVERY, 50);
    assertEquals(10.0, load.nanosPerByte(), 0.5, "10 ns per byte between completions");
  }

  @Test
  void oneStallMovesTheEstimateABoundedStepAndItRecovers() {
    steady(4, EVERY, 50);
    double before = load.nanosPerByte();
    now += 2_000_000_000L;
    load.release(SLICE, true, now);
    load.acquire(SLICE, now);
    double after = load.nanosPerByte();
    assertTrue(after <= before * 2, "one stalled window: " + before + " -> " + after);
    steady(4, EVERY, 50);
    assertEquals(10.0, load.nanosPerByte(), 0.5, "back to the rate after the stall");
  }

  @Test
  void aRailThatTurnsSlowIsSeenSlowWithinAFewWindows() {
    steady(4, EVERY, 50);
    steady(4, EVERY * 8, 30);
    assertTrue(load.nanosPerByte() > 60, "8x slower: " + load.nanosPerByte());
  }

  @Test
  void failuresAndIdleTimeDoNotCountAsBusyTime() {
    steady(2, EVERY, 50);
    load.release(SLICE, true, now);
    load.release(SLICE, false, now);
    assertEquals(0, load.outstanding());
    now += 5_000_000_000L; // idle
    load.acquire(SLICE, now);
    load.acquire(SLICE, now);
    now += 3_000_000_000L;
    load.release(SLICE, false, now); // a QP timeout: no bytes, no rate
    load.acquire(SLICE, now);
    steady(2, EVERY, 50);
    assertEquals(10.0, load.nanosPerByte(), 0.5);
  }

  @Test
  void aRailIdleLongerThanStaleIsMeasuredAfresh() {
    steady(2, EVERY * 100, 20);
    assertTrue(load.nanosPerByte() > 500, "slow at first: " + load.nanosPerByte());
    load.release(SLICE, true, now);
    load.release(SLICE, true, now);
    assertTrue(load.currentNanosPerByte(now) > 500, "just idle: its estimate still counts");
    now += RailLoad.STALE_NANOS + 1;
    assertEquals(
        0, load.currentNanosPerByte(now), "idle past stale: unknown, so selection tries it");
    steady(2, EVERY, 10);
    assertEquals(
        10.0, load.nanosPerByte(), 0.5, "measured anew, not blended with the old slowness");
  }
}
