package io.vte.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How long the single-request runs next to a configured run measure and warm up. */
class SingleRequestRunTest {

  private static LoadFlags load(double durationSeconds, double warmupSeconds) {
    LoadFlags load = new LoadFlags();
    load.duration = durationSeconds;
    load.warmup = warmupSeconds;
    return load;
  }

  @Test
  void aQuarterOfTheConfiguredRunWithinItsBounds() {
    assertEquals(Duration.ofMillis(2500), SingleRequestRun.durationFor(load(10, 2)));
    assertEquals(Duration.ofMillis(500), SingleRequestRun.durationFor(load(2, 2)));
    assertEquals(
        SingleRequestRun.MIN_DURATION,
        SingleRequestRun.durationFor(load(0.5, 2)),
        "a short run stays short");
    assertEquals(SingleRequestRun.MAX_DURATION, SingleRequestRun.durationFor(load(60, 2)));
  }

  @Test
  void theWarmUpNeverExceedsTheConfiguredOne() {
    assertEquals(SingleRequestRun.MAX_WARMUP, SingleRequestRun.warmupFor(load(10, 2)));
    assertEquals(Duration.ofMillis(100), SingleRequestRun.warmupFor(load(10, 0.1)));
    assertEquals(Duration.ZERO, SingleRequestRun.warmupFor(load(10, 0)));
  }
}
