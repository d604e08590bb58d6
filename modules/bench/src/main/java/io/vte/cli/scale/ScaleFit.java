package io.vte.cli.scale;

import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A per-host figure fitted per host: the runs' totals (per-host figure x hosts) as {@code shared +
 * base x H + perPeer x H (H - 1)}, by least squares with no coefficient below zero, so that a cost
 * all hosts of a run share (one JVM's threads and pools when the hosts are engines in one JVM) is
 * not read as a per-host cost that falls with more hosts. The projection to large clusters (every
 * host talking to every other, as in the runs) is then {@code base + perPeer x (N - 1) + shared /
 * N} per host, never below zero. The shared term is fitted only from three host counts on; with two
 * the line has no room for it.
 *
 * @param what the figure's name
 * @param unit its unit
 * @param shared the fitted cost all hosts of a run share
 * @param base the fitted cost of a host with no peer
 * @param perPeer the fitted cost of each peer of a host
 */
record ScaleFit(String what, String unit, double shared, double base, double perPeer) {

  /** Cluster sizes the README projects to. */
  static final int[] PROJECTED_NODES = {1_000, 10_000};

  /**
   * @param what the figure's name
   * @param unit its unit
   * @param rows the runs (two host counts at least)
   * @param figure the per-host figure of a run
   * @return the fit with the least squared error among those with no coefficient below zero
   */
  static ScaleFit of(
      String what, String unit, List<ScaleRow> rows, ToDoubleFunction<ScaleRow> figure) {
    int n = rows.size();
    double[][] x = new double[n][];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      double h = rows.get(i).hosts();
      x[i] = new double[] {1, h, h * (h - 1)};
      y[i] = figure.applyAsDouble(rows.get(i)) * h;
    }
    boolean sharedFits = rows.stream().mapToInt(ScaleRow::hosts).distinct().count() >= 3;
    double[] best = new double[3];
    double bestError = Double.POSITIVE_INFINITY;
    // every subset of the three terms (bit 0 shared, 1 base, 2 per peer); the empty one is zero
    for (int terms = 0; terms < 8; terms++) {
      if ((terms & 1) != 0 && !sharedFits) {
        continue;
      }
      double[] c = leastSquares(x, y, terms);
      if (c == null || !nonNegative(c, y)) {
        continue;
      }
      double error = 0;
      for (int i = 0; i < n; i++) {
        double e = y[i] - (c[0] * x[i][0] + c[1] * x[i][1] + c[2] * x[i][2]);
        error += e * e;
      }
      // a tie (within rounding) goes to the fit with fewer terms, which come first here
      if (bestError == Double.POSITIVE_INFINITY
          || error < bestError - 1e-9 * Math.max(1, bestError)) {
        bestError = error;
        best = c;
      }
    }
    return new ScaleFit(what, unit, best[0], best[1], best[2]);
  }

  /**
   * @return true when no coefficient is below zero beyond rounding; such rounding is set to 0
   */
  private static boolean nonNegative(double[] c, double[] y) {
    double scale = 1;
    for (double v : y) {
      scale = Math.max(scale, Math.abs(v));
    }
    for (int j = 0; j < c.length; j++) {
      if (c[j] < -1e-9 * scale) {
        return false;
      }
      c[j] = Math.max(0, c[j]);
    }
    return true;
  }

  /**
   * Solves the normal equations over the terms picked by the bits of {@code terms}.
   *
   * @return the three coefficients (0 for a term not picked), or null when singular
   */
  private static double[] leastSquares(double[][] x, double[] y, int terms) {
    int[] cols = new int[Integer.bitCount(terms)];
    for (int j = 0, k = 0; j < 3; j++) {
      if ((terms & (1 << j)) != 0) {
        cols[k++] = j;
      }
    }
    int m = cols.length;
    double[][] a = new double[m][m + 1];
    for (int i = 0; i < x.length; i++) {
      for (int r = 0; r < m; r++) {
        for (int c = 0; c < m; c++) {
          a[r][c] += x[i][cols[r]] * x[i][cols[c]];
        }
        a[r][m] += x[i][cols[r]] * y[i];
      }
    }
    // Gauss-Jordan with partial pivoting
    for (int p = 0; p < m; p++) {
      int pivot = p;
      for (int r = p + 1; r < m; r++) {
        if (Math.abs(a[r][p]) > Math.abs(a[pivot][p])) {
          pivot = r;
        }
      }
      if (Math.abs(a[pivot][p]) < 1e-12) {
        return null;
      }
      double[] t = a[p];
      a[p] = a[pivot];
      a[pivot] = t;
      for (int r = 0; r < m; r++) {
        if (r != p) {
          double f = a[r][p] / a[p][p];
          for (int c = p; c <= m; c++) {
            a[r][c] -= f * a[p][c];
          }
        }
      }
    }
    double[] coefficients = new double[3];
    for (int r = 0; r < m; r++) {
      coefficients[cols[r]] = a[r][m] / a[r][r];
    }
    return coefficients;
  }

  /**
   * @param nodes cluster size
   * @return the projected per-host figure, never below zero
   */
  double at(int nodes) {
    return Math.max(0, base + perPeer * (nodes - 1) + shared / nodes);
  }

  /** The markdown table header of {@link #markdown()}. */
  static String header() {
    StringBuilder b = new StringBuilder("| per host | shared by all hosts | base | per peer |");
    StringBuilder sep = new StringBuilder("|---|---|---|---|");
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
            String.format(
                Locale.ROOT,
                "| %s (%s) | %.1f | %.1f | %.2f |",
                what,
                unit,
                shared,
                base,
                perPeer));
    for (int nodes : PROJECTED_NODES) {
      b.append(String.format(Locale.ROOT, " %,.0f |", at(nodes)));
    }
    return b.toString();
  }
}
