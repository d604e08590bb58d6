package io.vte.cli.scale;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A per-host figure as a straight line in the number of peers, {@code base + perPeer x peers},
 * fitted by least squares over the runs, and projected to large clusters (every host talking to
 * every other, as in the runs). A figure that fell as peers were added is fitted flat (its mean, 0
 * per peer), and no projection is below zero.
 *
 * @param what the figure's name
 * @param unit its unit
 * @param base the fitted cost of a host with no peer
 * @param perPeer the fitted cost of each peer
 */
record ScaleFit(String what, String unit, double base, double perPeer) {

  /** Cluster sizes the README projects to. */
  static final int[] PROJECTED_NODES = {1_000, 10_000};

  /**
   * @param what the figure's name
   * @param unit its unit
   * @param rows the runs (two host counts at least)
   * @param figure the per-host figure of a run
   * @return the line through the runs
   */
  static ScaleFit of(
      String what, String unit, List<ScaleRow> rows, ToDoubleFunction<ScaleRow> figure) {
    int n = rows.size();
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    for (ScaleRow r : rows) {
      double x = r.hosts() - 1;
      double y = figure.applyAsDouble(r);
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    double d = n * sxx - sx * sx;
    double slope = d == 0 ? 0 : (n * sxy - sx * sy) / d;
    if (slope < 0) {
      // every figure here is a cost that cannot fall as peers are added: a falling line is noise
      // (e.g. a thread pool that shrank between runs), and projected it would go below zero
      return new ScaleFit(what, unit, sy / n, 0);
    }
    return new ScaleFit(what, unit, (sy - slope * sx) / n, slope);
  }

  /**
   * @param nodes cluster size
   * @return the projected per-host figure, never below zero
   */
  double at(int nodes) {
    return Math.max(0, base + perPeer * (nodes - 1));
  }

  /** The markdown table header of {@link #markdown()}. */
  static String header() {
    StringBuilder b = new StringBuilder("| per host | base | per peer |");
    StringBuilder sep = new StringBuilder("|---|---|---|");
    for (int nodes : PROJECTED_NODES) {
      b.append(String.format(Locale.ROOT, " at %,d nodes |", nodes));
      sep.append("---|");
    }
    return b + "\n" + sep;
  }

  /**
   * @return this fit as a markdown table line
   */
  String markdown() {
    StringBuilder b =
        new StringBuilder(
            String.format(Locale.ROOT, "| %s (%s) | %.1f | %.2f |", what, unit, base, perPeer));
    for (int nodes : PROJECTED_NODES) {
      b.append(String.format(Locale.ROOT, " %,.0f |", at(nodes)));
    }
    return b.toString();
  }
}
