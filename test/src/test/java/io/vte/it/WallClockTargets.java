package io.vte.it;

import io.vte.testkit.TimingTargets;
import java.util.List;

/**
 * Runs a scenario whose wall-clock {@link Target}s depend on the machine's load: a scenario checks
 * its correctness (no failed transfer, byte-exact data, no leak) first and at once, then {@link
 * #require} its targets; a missed target makes {@link #retryOnceOnMiss} run the whole scenario once
 * more, and only a second miss fails the test. Both tries stay in the summary (the missed one
 * marked MISSED, each with its try number). The retry rule itself is the suite's one rule, {@link
 * TimingTargets}.
 */
final class WallClockTargets {

  /** A scenario's wall-clock target was missed; its correctness checks had passed. */
  static final class Missed extends AssertionError {
    private static final long serialVersionUID = 1L;

    Missed(String message) {
      super(message);
    }
  }

  /** One try at a scenario. */
  @FunctionalInterface
  interface Scenario {
    /**
     * @throws Exception when the scenario fails
     */
    void run() throws Exception;
  }

  private WallClockTargets() {}

  /**
   * @param figures the scenario's figures, with its targets
   * @throws Missed naming every target missed, measured against its target
   */
  static void require(ScenarioFigures figures) {
    List<Target> missed = figures.targets().stream().filter(t -> !t.met()).toList();
    if (!missed.isEmpty()) {
      throw new Missed(figures.scenario() + ": wall-clock target missed: " + missed);
    }
  }

  /**
   * Runs {@code scenario} under {@link TimingTargets#retryOnce}, each try numbered in the summary.
   *
   * @param scenario one try
   * @throws Exception the scenario's failure, or a {@link TimingTargets.MissedTwice} naming what
   *     both tries missed
   */
  static void retryOnceOnMiss(Scenario scenario) throws Exception {
    TimingTargets.retryOnce(
        "the scenario",
        tryNumber -> {
          ReliabilityReport.startTry(tryNumber);
          try {
            scenario.run();
            return List.of();
          } catch (Missed missed) {
            ReliabilityReport.tryMissed();
            return List.of(missed.getMessage());
          }
        });
  }
}
