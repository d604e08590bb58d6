package io.vte.cli.bench.fault;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One step of an {@code --inject} schedule: a fault of some kind on a soft device at an offset from
 * the start of the measurement. The textual form is {@code KIND:DEVICE[:FRACTION]@TIME}, e.g.
 * {@code port-down:soft1@5s}, {@code drop:soft0:0.01@2.5s}, {@code clear:soft0@500ms}.
 *
 * @param kind what to inject
 * @param device the soft device name
 * @param fraction the frame fraction for {@link Kind#DROP} (0 otherwise)
 * @param atNanos when, in nanoseconds after the measurement starts
 */
public record FaultStep(Kind kind, String device, double fraction, long atNanos) {

  private static final Pattern STEP =
      Pattern.compile(
          "([a-z-]+):([A-Za-z0-9_.-]+)(?::([0-9]*\\.?[0-9]+))?@([0-9]*\\.?[0-9]+)(s|ms)");

  /** The fault kinds {@code --inject} knows. */
  public enum Kind {
    /** Port down: traffic through the device stops, PORT_ERR is raised. */
    PORT_DOWN("port-down"),
    /** Port up again. */
    PORT_UP("port-up"),
    /** Every live QP of the device goes to ERR (QP_FATAL). */
    QP_FATAL("qp-fatal"),
    /** A fraction of the frames the device sends is dropped. */
    DROP("drop"),
    /** Frame drops stop. */
    CLEAR("clear");

    private final String label;

    Kind(String label) {
      this.label = label;
    }

    /**
     * @return the name used on the command line
     */
    public String label() {
      return label;
    }

    static Kind of(String label) {
      for (Kind k : values()) {
        if (k.label.equals(label)) {
          return k;
        }
      }
      return null;
    }
  }

  /**
   * Parses a comma-separated schedule.
   *
   * @param spec e.g. {@code port-down:soft1@5s,port-up:soft1@12s}
   * @return the steps sorted by time
   * @throws IllegalArgumentException naming the bad step and what was expected
   */
  public static List<FaultStep> parseAll(String spec) {
    if (spec == null || spec.isBlank()) {
      throw new IllegalArgumentException(
          "--inject is empty: expected KIND:DEVICE[:FRACTION]@TIME[,...]");
    }
    List<FaultStep> steps = new ArrayList<>();
    for (String part : spec.split(",", -1)) {
      steps.add(parse(part.trim()));
    }
    steps.sort((a, b) -> Long.compare(a.atNanos, b.atNanos));
    return List.copyOf(steps);
  }

  /**
   * Parses one step.
   *
   * @param text e.g. {@code drop:soft0:0.05@3s}
   * @return the step
   * @throws IllegalArgumentException naming the bad step and what was expected
   */
  public static FaultStep parse(String text) {
    Matcher m = STEP.matcher(text);
    if (!m.matches()) {
      throw bad(text, "expected KIND:DEVICE[:FRACTION]@TIME with TIME like 5s or 500ms");
    }
    Kind kind = Kind.of(m.group(1));
    if (kind == null) {
      throw bad(
          text, "unknown kind '" + m.group(1) + "' (port-down, port-up, qp-fatal, drop, clear)");
    }
    double fraction = 0;
    if (kind == Kind.DROP) {
      if (m.group(3) == null) {
        throw bad(
            text,
            "drop needs a fraction, e.g. drop:" + m.group(2) + ":0.01@" + m.group(4) + m.group(5));
      }
      fraction = Double.parseDouble(m.group(3));
      if (!(fraction > 0 && fraction <= 1)) {
        throw bad(text, "the drop fraction must be in (0, 1], got " + m.group(3));
      }
    } else if (m.group(3) != null) {
      throw bad(text, kind.label + " takes no fraction");
    }
    double at = Double.parseDouble(m.group(4)) * ("ms".equals(m.group(5)) ? 1e6 : 1e9);
    if (at > 3600e9) {
      throw bad(text, "the time must be at most 3600s");
    }
    return new FaultStep(kind, m.group(2), fraction, (long) at);
  }

  private static IllegalArgumentException bad(String text, String why) {
    return new IllegalArgumentException("bad --inject step '" + text + "': " + why);
  }

  @Override
  public String toString() {
    String arg = kind == Kind.DROP ? ":" + fraction : "";
    return String.format(Locale.ROOT, "%s:%s%s@%.3fs", kind.label, device, arg, atNanos / 1e9);
  }
}
