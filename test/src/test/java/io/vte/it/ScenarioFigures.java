package io.vte.it;

import java.util.List;

/**
 * The figures one scenario reports in the suite summary; NaN marks a figure the scenario does not
 * measure.
 *
 * @param scenario short name, e.g. "1a sender NIC down 5-12 s"
 * @param transfers requests that ended (any status)
 * @param failures requests that did not complete, where completion was required
 * @param maxLatencyMs longest request latency
 * @param pollGapP999Ms 99.9th percentile CQ poll gap of the measured engine
 * @param recoveryMs time from the last fault to recovered service
 * @param note anything else worth a glance (throughput, rates, typed errors seen)
 * @param targets the scenario's wall-clock targets, each measured against its target (see {@link
 *     WallClockTargets})
 */
public record ScenarioFigures(
    String scenario,
    long transfers,
    long failures,
    double maxLatencyMs,
    double pollGapP999Ms,
    double recoveryMs,
    String note,
    List<Target> targets) {

  /**
   * Figures of a scenario without wall-clock targets.
   *
   * @param scenario short name
   * @param transfers requests that ended
   * @param failures requests that did not complete
   * @param maxLatencyMs longest request latency
   * @param pollGapP999Ms 99.9th percentile CQ poll gap
   * @param recoveryMs time from the last fault to recovered service
   * @param note anything else worth a glance
   */
  public ScenarioFigures(
      String scenario,
      long transfers,
      long failures,
      double maxLatencyMs,
      double pollGapP999Ms,
      double recoveryMs,
      String note) {
    this(scenario, transfers, failures, maxLatencyMs, pollGapP999Ms, recoveryMs, note, List.of());
  }

  /** Keeps an immutable copy of the targets. */
  public ScenarioFigures {
    targets = List.copyOf(targets);
  }

  /**
   * @param nanos a duration in nanoseconds
   * @return the same in milliseconds
   */
  public static double ms(long nanos) {
    return nanos / 1e6;
  }
}
