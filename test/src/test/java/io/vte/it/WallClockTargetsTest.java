package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.TimingTargets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The retry rule of wall-clock targets: a miss is tried once more, a second miss or a wrong result
 * fails at once.
 */
class WallClockTargetsTest {

  private static ScenarioFigures figures(Target... targets) {
    return new ScenarioFigures(
        "unit", 1, 0, Double.NaN, Double.NaN, Double.NaN, "", List.of(targets));
  }

  @Test
  void targetsCompareTheMeasurementAndANeverMeasuredFigureMisses() {
    assertTrue(Target.below("gap", 49.9, 50).met());
    assertFalse(Target.below("gap", 50, 50).met());
    assertTrue(Target.atMost("recovery", 2000, 2000).met());
    assertFalse(Target.atMost("recovery", Double.NaN, 2000).met());
    assertEquals(
        "recovery 2400 ms (target <=2000) MISSED",
        Target.atMost("recovery", 2400, 2000).toString());
    assertEquals(
        "recovery none (target <=2000) MISSED",
        Target.atMost("recovery", Double.NaN, 2000).toString());
    assertEquals("gap 12 ms (target <50)", Target.below("gap", 12, 50).toString());
  }

  @Test
  void aMissedTargetIsTriedOnceMoreAndPassesWhenTheSecondTryMeetsIt() throws Exception {
    AtomicInteger tries = new AtomicInteger();
    WallClockTargets.retryOnceOnMiss(
        () ->
            WallClockTargets.require(
                figures(
                    Target.atMost("recovery", tries.incrementAndGet() == 1 ? 2400 : 900, 2000))));
    assertEquals(2, tries.get());
  }

  @Test
  void twoMissesFailNamingBothTries() {
    AtomicInteger tries = new AtomicInteger();
    TimingTargets.MissedTwice e =
        assertThrows(
            TimingTargets.MissedTwice.class,
            () ->
                WallClockTargets.retryOnceOnMiss(
                    () ->
                        WallClockTargets.require(
                            figures(Target.below("gap", 60 + tries.incrementAndGet(), 50)))));
    assertEquals(2, tries.get());
    assertTrue(
        e.getMessage()
                .contains("try 1: unit: wall-clock target missed: [gap 61 ms (target <50) MISSED]")
            && e.getMessage().contains("try 2: unit: wall-clock target missed: [gap 62 ms"),
        e.getMessage());
  }

  @Test
  void aWrongResultIsNeverRetried() {
    AtomicInteger tries = new AtomicInteger();
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () ->
                WallClockTargets.retryOnceOnMiss(
                    () -> {
                      tries.incrementAndGet();
                      throw new AssertionError("2 failed transfers");
                    }));
    assertFalse(e instanceof WallClockTargets.Missed || e instanceof TimingTargets.MissedTwice);
    assertEquals(1, tries.get());
  }
}
