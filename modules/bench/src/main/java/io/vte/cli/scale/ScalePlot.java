package io.vte.cli.scale;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;

/**
 * Growth curves of a scale sweep as a PNG (plain headless {@code java.awt}): four panels against
 * the number of hosts, direct memory, sockets, endpoints and first-transfer latency per host, busy
 * and idle where both were measured.
 */
final class ScalePlot {

  private static final int PANEL_W = 480;
  private static final int PANEL_H = 300;
  private static final int PAD = 56;
  private static final Color BUSY = new Color(0xd6, 0x27, 0x28);
  private static final Color IDLE = new Color(0x1f, 0x77, 0xb4);

  private ScalePlot() {}

  /** One panel: a title and one or two series. */
  private record Panel(
      String title, ToDoubleFunction<ScaleRow> busy, ToDoubleFunction<ScaleRow> idle) {}

  /**
   * Writes the plot.
   *
   * @param rows the sweep, sorted by hosts
   * @param png where
   * @throws IOException when it cannot be written
   */
  static void write(List<ScaleRow> rows, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    List<Panel> panels =
        List.of(
            new Panel(
                "direct KiB per host (red busy, blue idle)",
                r -> r.directBusy() / 1024,
                r -> r.directIdle() / 1024),
            new Panel(
                "TCP sockets per host (red busy, blue idle)",
                ScaleRow::sockets,
                ScaleRow::idleSockets),
            new Panel("per host: red endpoints, blue QPs", ScaleRow::endpoints, ScaleRow::qps),
            new Panel(
                "first transfer to a new peer, ms (red p99, blue p50)",
                r -> r.firstP99Micros() / 1000,
                r -> r.firstP50Micros() / 1000));
    BufferedImage img = new BufferedImage(2 * PANEL_W, 2 * PANEL_H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, img.getWidth(), img.getHeight());
      for (int i = 0; i < panels.size(); i++) {
        panel(g, rows, panels.get(i), (i % 2) * PANEL_W, (i / 2) * PANEL_H);
      }
    } finally {
      g.dispose();
    }
    if (!ImageIO.write(img, "png", png.toFile())) {
      throw new IOException("no PNG writer in this JVM");
    }
  }

  private static void panel(Graphics2D g, List<ScaleRow> rows, Panel p, int ox, int oy) {
    int w = PANEL_W - 2 * PAD;
    int h = PANEL_H - 2 * PAD;
    double xMax = rows.stream().mapToInt(ScaleRow::hosts).max().orElse(2);
    double yMax = 0;
    for (ScaleRow r : rows) {
      yMax = Math.max(yMax, Math.max(p.busy().applyAsDouble(r), p.idle().applyAsDouble(r)));
    }
    yMax = yMax <= 0 ? 1 : yMax * 1.1;
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 13));
    g.setColor(Color.BLACK);
    g.drawString(p.title(), ox + PAD, oy + PAD - 16);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.drawRect(ox + PAD, oy + PAD, w, h);
    for (int i = 0; i <= 4; i++) {
      double v = yMax * i / 4;
      int y = oy + PAD + h - (int) Math.round(v / yMax * h);
      g.drawString(String.format(Locale.ROOT, "%.0f", v), ox + 6, y + 4);
    }
    for (ScaleRow r : rows) {
      int x = ox + PAD + (int) Math.round(r.hosts() / xMax * w);
      g.drawString(Integer.toString(r.hosts()), x - 6, oy + PAD + h + 16);
    }
    g.drawString("hosts", ox + PAD + w / 2 - 14, oy + PAD + h + 32);
    series(g, rows, p.busy(), BUSY, ox, oy, w, h, xMax, yMax);
    series(g, rows, p.idle(), IDLE, ox, oy, w, h, xMax, yMax);
  }

  private static void series(
      Graphics2D g,
      List<ScaleRow> rows,
      ToDoubleFunction<ScaleRow> f,
      Color c,
      int ox,
      int oy,
      int w,
      int h,
      double xMax,
      double yMax) {
    g.setColor(c);
    g.setStroke(new BasicStroke(2f));
    int px = -1;
    int py = -1;
    for (ScaleRow r : rows) {
      int x = ox + PAD + (int) Math.round(r.hosts() / xMax * w);
      int y = oy + PAD + h - (int) Math.round(f.applyAsDouble(r) / yMax * h);
      g.fillOval(x - 3, y - 3, 7, 7);
      if (px >= 0) {
        g.drawLine(px, py, x, y);
      }
      px = x;
      py = y;
    }
    g.setStroke(new BasicStroke(1f));
  }
}
