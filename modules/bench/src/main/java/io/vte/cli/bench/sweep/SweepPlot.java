package io.vte.cli.bench.sweep;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.AffineTransform;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * Draws a sweep as a PNG with plain {@code java.awt} (headless): throughput (GiB/s, left axis,
 * linear) and p99 latency (microseconds, right axis, log scale) against block size (log scale x),
 * with a legend.
 */
public final class SweepPlot {

  private static final int W = 960;
  private static final int H = 560;
  private static final int LEFT = 80;
  private static final int RIGHT = 90;
  private static final int TOP = 60;
  private static final int BOTTOM = 70;
  private static final Color THROUGHPUT = new Color(0x1f, 0x77, 0xb4);
  private static final Color LATENCY = new Color(0xd6, 0x27, 0x28);

  private SweepPlot() {}

  /**
   * Writes the plot.
   *
   * @param rows the sweep, at least one row
   * @param title the title line
   * @param png where to write
   * @throws IOException when the file cannot be written
   */
  public static void write(List<SweepRow> rows, String title, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, W, H);
      draw(g, rows, title);
    } finally {
      g.dispose();
    }
    if (!ImageIO.write(img, "png", png.toFile())) {
      throw new IOException("no PNG writer in this JVM");
    }
  }

  private static void draw(Graphics2D g, List<SweepRow> rows, String title) {
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    double xMin = log2(rows.stream().mapToInt(SweepRow::blockSize).min().orElse(1));
    double xMax =
        Math.max(xMin + 1, log2(rows.stream().mapToInt(SweepRow::blockSize).max().orElse(2)));
    double yMax =
        niceCeil(
            Math.max(0.1, rows.stream().mapToDouble(SweepRow::gibPerSecond).max().orElse(1)) * 1.1);
    double latMinDecade =
        Math.floor(
            Math.log10(
                Math.max(1, rows.stream().mapToDouble(SweepRow::p99Micros).min().orElse(1))));
    double latMaxDecade =
        Math.max(
            latMinDecade + 1,
            Math.ceil(
                Math.log10(
                    Math.max(
                        10, rows.stream().mapToDouble(SweepRow::p99Micros).max().orElse(10)))));
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
    g.setColor(Color.BLACK);
    centered(g, title, LEFT + pw / 2, 30);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    // Grid and x ticks: one per power of two in range, labelled.
    for (int e = (int) Math.ceil(xMin); e <= (int) Math.floor(xMax); e++) {
      int x = LEFT + (int) Math.round((e - xMin) / (xMax - xMin) * pw);
      g.setColor(new Color(0xe6, 0xe6, 0xe6));
      g.drawLine(x, TOP, x, TOP + ph);
      g.setColor(Color.BLACK);
      g.drawLine(x, TOP + ph, x, TOP + ph + 5);
      if ((xMax - xMin) <= 12 || e % 2 == 0) {
        centered(g, SweepRow.label(1L << e), x, TOP + ph + 20);
      }
    }
    // Left axis: throughput, 5 linear steps.
    for (int i = 0; i <= 5; i++) {
      double v = yMax * i / 5;
      int y = TOP + ph - (int) Math.round(v / yMax * ph);
      g.setColor(new Color(0xe6, 0xe6, 0xe6));
      g.drawLine(LEFT, y, LEFT + pw, y);
      g.setColor(THROUGHPUT);
      String s = String.format(Locale.ROOT, "%.2f", v);
      g.drawString(s, LEFT - 8 - g.getFontMetrics().stringWidth(s), y + 4);
    }
    // Right axis: p99 latency, one tick per decade.
    for (int d = (int) latMinDecade; d <= (int) latMaxDecade; d++) {
      int y = TOP + ph - (int) Math.round((d - latMinDecade) / (latMaxDecade - latMinDecade) * ph);
      g.setColor(LATENCY);
      g.drawLine(LEFT + pw, y, LEFT + pw + 5, y);
      g.drawString(decade(d), LEFT + pw + 8, y + 4);
    }
    g.setColor(Color.BLACK);
    g.drawRect(LEFT, TOP, pw, ph);
    centered(g, "block size (bytes, log scale)", LEFT + pw / 2, TOP + ph + 45);
    vertical(g, "throughput (GiB/s)", 22, TOP + ph / 2, THROUGHPUT);
    vertical(g, "p99 batch latency (us, log scale)", W - 18, TOP + ph / 2, LATENCY);
    ToDoubleFunction<SweepRow> xOf = r -> LEFT + (log2(r.blockSize()) - xMin) / (xMax - xMin) * pw;
    // One pair of lines per batch size: rows come batch-major, a series per batch size.
    for (List<SweepRow> series : bySeries(rows)) {
      series(g, series, xOf, r -> TOP + ph - r.gibPerSecond() / yMax * ph, THROUGHPUT, false);
      series(
          g,
          series,
          xOf,
          r ->
              TOP
                  + ph
                  - (Math.log10(Math.max(1, r.p99Micros())) - latMinDecade)
                      / (latMaxDecade - latMinDecade)
                      * ph,
          LATENCY,
          true);
      SweepRow last = series.get(series.size() - 1);
      g.setColor(THROUGHPUT);
      g.drawString(
          "batch " + series.get(0).batchSize(),
          (int) xOf.applyAsDouble(last) - 60,
          (int) (TOP + ph - last.gibPerSecond() / yMax * ph) - 8);
    }
    legend(g, LEFT + 14, TOP + 14);
  }

  /**
   * @return the rows cut where the block size starts again from small, each run a series (one batch
   *     size asked for; the sweep shrinks the batch of its largest blocks, so that is not the cut)
   */
  static List<List<SweepRow>> bySeries(List<SweepRow> rows) {
    List<List<SweepRow>> out = new java.util.ArrayList<>();
    for (SweepRow r : rows) {
      List<SweepRow> last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last == null || r.blockSize() <= last.get(last.size() - 1).blockSize()) {
        out.add(new java.util.ArrayList<>());
      }
      out.get(out.size() - 1).add(r);
    }
    return out;
  }

  private static void series(
      Graphics2D g,
      List<SweepRow> rows,
      ToDoubleFunction<SweepRow> x,
      ToDoubleFunction<SweepRow> y,
      Color color,
      boolean squares) {
    g.setColor(color);
    g.setStroke(new BasicStroke(2.2f));
    for (int i = 1; i < rows.size(); i++) {
      g.drawLine(
          (int) x.applyAsDouble(rows.get(i - 1)),
          (int) y.applyAsDouble(rows.get(i - 1)),
          (int) x.applyAsDouble(rows.get(i)),
          (int) y.applyAsDouble(rows.get(i)));
    }
    for (SweepRow r : rows) {
      int px = (int) x.applyAsDouble(r);
      int py = (int) y.applyAsDouble(r);
      if (squares) {
        g.fillRect(px - 4, py - 4, 8, 8);
      } else {
        g.fillOval(px - 4, py - 4, 9, 9);
      }
    }
    g.setStroke(new BasicStroke(1f));
  }

  private static void legend(Graphics2D g, int x, int y) {
    g.setColor(Color.WHITE);
    g.fillRect(x, y, 250, 50);
    g.setColor(Color.GRAY);
    g.drawRect(x, y, 250, 50);
    g.setColor(THROUGHPUT);
    g.fillOval(x + 12, y + 11, 9, 9);
    g.drawLine(x + 6, y + 15, x + 28, y + 15);
    g.setColor(Color.BLACK);
    g.drawString("throughput (GiB/s, left axis)", x + 36, y + 20);
    g.setColor(LATENCY);
    g.fillRect(x + 13, y + 32, 8, 8);
    g.drawLine(x + 6, y + 36, x + 28, y + 36);
    g.setColor(Color.BLACK);
    g.drawString("p99 latency (us, right axis)", x + 36, y + 41);
  }

  private static void centered(Graphics2D g, String s, int x, int y) {
    FontMetrics fm = g.getFontMetrics();
    g.drawString(s, x - fm.stringWidth(s) / 2, y);
  }

  private static void vertical(Graphics2D g, String s, int x, int y, Color color) {
    AffineTransform saved = g.getTransform();
    g.setColor(color);
    g.rotate(-Math.PI / 2, x, y);
    centered(g, s, x, y);
    g.setTransform(saved);
  }

  private static String decade(int d) {
    String[] suffix = {"", "k", "M", "G"};
    return (long) Math.pow(10, d % 3) + suffix[Math.min(d / 3, 3)];
  }

  private static double niceCeil(double v) {
    double p = Math.pow(10, Math.floor(Math.log10(v)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= v) {
        return m * p;
      }
    }
    return 10 * p;
  }

  private static double log2(double v) {
    return Math.log(v) / Math.log(2);
  }
}
