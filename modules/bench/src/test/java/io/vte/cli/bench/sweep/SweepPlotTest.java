package io.vte.cli.bench.sweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sweep plot draws both series in their colours inside the frame. */
class SweepPlotTest {

  @Test
  void aBatchSizeShrunkForTheLargestBlocksStaysOneSeries() {
    List<SweepRow> rows =
        List.of(
            new SweepRow(4096, 1, 8, 0.1, 20000, 50, 200, 0, 0),
            new SweepRow(64 << 20, 1, 4, 1.0, 20, 9000, 30000, 0, 0),
            new SweepRow(4096, 32, 8, 0.7, 180000, 900, 5000, 0, 0),
            new SweepRow(16 << 20, 16, 1, 1.4, 90, 90000, 200000, 0, 0),
            new SweepRow(64 << 20, 4, 1, 1.9, 30, 120000, 200000, 0, 0));
    List<List<SweepRow>> series = SweepPlot.bySeries(rows);
    assertEquals(List.of(rows.subList(0, 2), rows.subList(2, 5)), series);
  }

  @Test
  void bothSeriesAppearInTheirColours(@TempDir Path dir) throws Exception {
    List<SweepRow> rows =
        List.of(
            new SweepRow(4096, 1, 8, 0.1, 20000, 50, 200, 0, 0),
            new SweepRow(1 << 20, 1, 8, 2.0, 2000, 400, 900, 0, 0),
            new SweepRow(64 << 20, 1, 4, 3.0, 40, 9000, 30000, 0, 0));
    Path png = dir.resolve("p.png");
    SweepPlot.write(rows, "test", png);
    BufferedImage img = ImageIO.read(png.toFile());
    int blue = 0;
    int red = 0;
    for (int y = 60; y < 560 - 70; y++) {
      for (int x = 80 + 260; x < 960 - 90; x++) {
        int rgb = img.getRGB(x, y) & 0xffffff;
        blue += rgb == 0x1f77b4 ? 1 : 0;
        red += rgb == 0xd62728 ? 1 : 0;
      }
    }
    assertTrue(blue > 200, "throughput line drawn: " + blue);
    assertTrue(red > 200, "latency line drawn: " + red);
    assertEquals(0xffffff, img.getRGB(5, 5) & 0xffffff, "white background");
  }
}
