package io.vte.it;

/**
 * A wall-clock target of a scenario (recovery within 2 s, every write under 5 s, poll gap p99.9
 * under 50 ms): a real goal whose measurement also depends on how loaded the machine is. The
 * summary shows it as measured/target; {@link WallClockTargets} runs a scenario once more when one
 * is missed and fails only when the second try misses too.
 *
 * @param figure what is measured, e.g. "recovery"
 * @param measuredMs the measurement in milliseconds; NaN when it never happened (e.g. no recovery
 *     in the run)
 * @param targetMs the target in milliseconds
 * @param inclusive whether a measurement equal to the target meets it
 */
public record Target(String figure, double measuredMs, double targetMs, boolean inclusive) {

  /**
   * @param figure what is measured
   * @param measuredMs the measurement, NaN when it never happened
   * @param targetMs the measurement must stay below this
   * @return the target
   */
  public static Target below(String figure, double measuredMs, double targetMs) {
    return new Target(figure, measuredMs, targetMs, false);
  }

  /**
   * @param figure what is measured
   * @param measuredMs the measurement, NaN when it never happened
   * @param targetMs the measurement must not exceed this
   * @return the target
   */
  public static Target atMost(String figure, double measuredMs, double targetMs) {
    return new Target(figure, measuredMs, targetMs, true);
  }

  /**
   * @return whether the measurement meets the target (a measurement that never happened does not)
   */
  public boolean met() {
    return !Double.isNaN(measuredMs)
        && (inclusive ? measuredMs <= targetMs : measuredMs < targetMs);
  }

  /**
   * @return e.g. "recovery 812 ms (target <=2000)", with " MISSED" appended when not met
   */
  @Override
  public String toString() {
    return String.format(
        "%s %s (target %s%.0f)%s",
        figure,
        Double.isNaN(measuredMs) ? "none" : String.format("%.0f ms", measuredMs),
        inclusive ? "<=" : "<",
        targetMs,
        met() ? "" : " MISSED");
  }
}
