package io.vte.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimingTargetsTest {

  @Test
  void aScenarioThatMeetsItsTargetsRunsOnce() throws Exception {
    List<Integer> tries = new ArrayList<>();
    TimingTargets.retryOnce(
        "met",
        n -> {
          tries.add(n);
          return List.of();
        });
    assertEquals(List.of(1), tries);
  }

  @Test
  void aMissIsTriedOnceMoreAndPassesWhenTheSecondTryMeetsIt() throws Exception {
    List<Integer> tries = new ArrayList<>();
    TimingTargets.retryOnce(
        "flaky",
        n -> {
          tries.add(n);
          return n == 1 ? List.of("recovery 2400 ms (target <=2000)") : List.of();
        });
    assertEquals(List.of(1, 2), tries);
  }

  @Test
  void twoMissesFailNamingWhatEachTryMissed() {
    TimingTargets.MissedTwice e =
        assertThrows(
            TimingTargets.MissedTwice.class,
            () -> TimingTargets.retryOnce("slow", n -> List.of("gap " + (60 + n) + " ms")));
    assertEquals(
        "slow missed its targets on both tries; try 1: gap 61 ms; try 2: gap 62 ms",
        e.getMessage());
  }

  @Test
  void aCorrectnessFailureIsNeverRetried() {
    List<Integer> tries = new ArrayList<>();
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () ->
                TimingTargets.retryOnce(
                    "broken",
                    n -> {
                      tries.add(n);
                      throw new AssertionError("2 failed transfers");
                    }));
    assertFalse(e instanceof TimingTargets.MissedTwice);
    assertEquals(List.of(1), tries);
  }
}
