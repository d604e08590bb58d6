package io.vte.it;

import java.util.List;

/**
 * Runs a scenario whose wall-clock {@link Target}s depend on the machine's load: a scenario checks
 * its correctness (no failed transfer, byte-exact data, no leak) first and at once, then {@link
 * #require} its targets; a missed target makes {@link #retryOnceOnMiss} run the whole scenario once
 * more, and only a second miss fails the test. Both tries stay in the summary (the missed one
 * marked MISSED, each with its try number).
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
   * Runs {@code scenario}; when it misses a wall-clock target, runs it once more.
   *
   * @param scenario one try
   * @throws Exception the scenario's failure, or a {@link Missed} naming what both tries missed
   */
  static void retryOnceOnMiss(Scenario scenario) throws Exception {
    ReliabilityReport.startTry(1);
    try {
      scenario.run();
    } catch (Missed first) {
      ReliabilityReport.tryMissed();
      System.out.println("[reliability] " + first.getMessage() + "; trying the scenario once more");
      ReliabilityReport.startTry(2);
      try {
        scenario.run();
      } catch (Missed second) {
        throw new Missed(
            "missed on both tries; try 1: "
                + first.getMessage()
                + "; try 2: "
                + second.getMessage());
      }
    }
  }
}
