package io.vte.cli.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.EngineOptions;
import io.vte.cli.CliRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code vte scale} on a small sweep, and the per-peer fit it reports. */
class ScaleCommandTest {

  @Test
  void aSmallSweepWritesTheTableThePlotAndTheFitWithNoFailedTransfer(@TempDir Path out)
      throws Exception {
    CliRun r =
        CliRun.of(
            "scale",
            "--hosts",
            "2,3",
            "--window",
            "0.5",
            "--idle-ms",
            "1500",
            "--time-scale",
            "2",
            "--handshakes-in-flight",
            "1",
            "--out",
            out.toString());
    assertEquals(0, r.exit(), r.out() + r.err());
    String md = Files.readString(out.resolve("scale.md"));
    List<String> rows = md.lines().filter(l -> l.matches("\\| [23] \\| 2 \\|.*")).toList();
    assertEquals(2, rows.size(), md);
    for (String row : rows) {
      String[] cells = row.split("\\|");
      assertEquals("0", cells[cells.length - 1].trim(), "failed transfers: " + row);
      double busy = Double.parseDouble(cells[5].trim());
      double idle = Double.parseDouble(cells[6].trim());
      assertTrue(idle < busy, "idle connections closed: " + row + "\n" + md);
    }
    assertTrue(md.contains("at 1,000 nodes"), md);
    assertTrue(md.contains("timeouts x 2.0"), "the report names the time scale: " + md);
    assertTrue(md.contains("handshakes in flight per owner 1"), md);
    byte[] png = Files.readAllBytes(out.resolve("scale.png"));
    assertEquals((byte) 0x89, png[0]);
    assertEquals('P', png[1]);
  }

  /**
   * The storm table has the handshake retry counts and the backoff of each storm, and no transfer
   * failed after the mesh was back.
   */
  @Test
  void aStormReportsItsHandshakeRetriesAndBackoff(@TempDir Path out) throws Exception {
    CliRun r =
        CliRun.of(
            "scale",
            "--hosts",
            "2",
            "--window",
            "0.3",
            "--idle-ms",
            "300",
            "--storm",
            "--out",
            out.toString());
    assertEquals(0, r.exit(), r.out() + r.err());
    String md = Files.readString(out.resolve("scale.md"));
    String storm = md.substring(md.indexOf("reconnect storm"));
    List<String> header = storm.lines().filter(l -> l.startsWith("| hosts")).toList();
    assertEquals(1, header.size(), md);
    List<String> columns = List.of(header.get(0).split("\\|")).stream().map(String::trim).toList();
    int retries = columns.indexOf("handshake retries");
    int backoff = columns.indexOf("backoff ms");
    assertTrue(retries > 0 && backoff > 0, header.get(0));
    List<String> rows = storm.lines().filter(l -> l.startsWith("| 2 |")).toList();
    assertEquals(1, rows.size(), md);
    String[] cells = rows.get(0).split("\\|");
    assertEquals(columns.size(), cells.length, rows.get(0));
    // both are counts the run reads (a refused handshake may or may not happen): whole numbers
    assertTrue(cells[retries].trim().matches("\\d+"), rows.get(0));
    assertTrue(cells[backoff].trim().matches("\\d+"), rows.get(0));
    int handshakes = columns.indexOf("handshakes");
    assertTrue(
        Long.parseLong(cells[handshakes].trim()) >= 2,
        "after the restart every host handshook with the other again: " + rows.get(0));
    assertEquals("0", cells[cells.length - 1].trim(), "failed after the storm: " + rows.get(0));
  }

  @Test
  void theFitIsTheLeastSquaresLineInThePeers() {
    List<ScaleRow> rows =
        List.of(row(2, 10), row(3, 20), row(5, 40)); // 10 per peer, base 0: y = 10 (h - 1)
    ScaleFit f = ScaleFit.of("endpoints", "count", rows, ScaleRow::endpoints);
    assertEquals(10, f.perPeer(), 1e-9);
    assertEquals(0, f.base(), 1e-9);
    assertEquals(0, f.shared(), 1e-9);
    assertEquals(9_990, f.at(1_000), 1e-6);
  }

  /**
   * Hosts in one JVM share its threads: a per-host figure that is the JVM's total divided by H
   * falls with H. Fitted per host, the shared part is its own term, the per-host cost stays, and
   * nothing is projected below zero.
   */
  @Test
  void aCostSharedByAllHostsIsFittedApartFromThePerHostCost() {
    // 40 threads for the JVM, 6 per host, 1 per peer: total = 40 + 6 H + H (H - 1)
    List<ScaleRow> rows = new java.util.ArrayList<>();
    for (int h : new int[] {2, 4, 8}) {
      rows.add(row(h, (40 + 6.0 * h + h * (h - 1.0)) / h));
    }
    ScaleFit f = ScaleFit.of("threads", "count", rows, ScaleRow::endpoints);
    assertEquals(40, f.shared(), 1e-6, f.toString());
    assertEquals(6, f.base(), 1e-6, f.toString());
    assertEquals(1, f.perPeer(), 1e-6, f.toString());
    assertEquals(6 + 999 + 40 / 1000.0, f.at(1_000), 1e-6);

    // the figures of a noisy sweep that fell per host: 60 with 2 hosts, 58 with 3, 55 with 5
    ScaleFit fell =
        ScaleFit.of(
            "threads", "count", List.of(row(2, 60), row(3, 58), row(5, 55)), ScaleRow::endpoints);
    assertEquals(0, fell.perPeer(), 1e-9, "a cost does not fall per peer: " + fell);
    assertTrue(fell.shared() > 0 && fell.base() > 0, "shared and per-host parts: " + fell);
    assertFalse(fell.markdown().contains("-"), fell.markdown());

    ScaleFit falling =
        ScaleFit.of("x", "count", List.of(row(2, 0), row(3, 0), row(4, 9)), ScaleRow::endpoints);
    assertTrue(
        falling.shared() >= 0 && falling.base() >= 0 && falling.perPeer() > 0,
        "a line through these would start below zero; the fit keeps every term >= 0: " + falling);
    assertFalse(falling.markdown().contains("-"), falling.markdown());
  }

  @Test
  void withTwoHostCountsNoSharedTermIsFitted() {
    // 30 per host plus 20 shared: with two host counts the shared part cannot be told apart
    ScaleFit f = ScaleFit.of("x", "count", List.of(row(2, 40), row(4, 35)), ScaleRow::endpoints);
    assertEquals(0, f.shared(), 1e-9, f.toString());
    assertTrue(f.base() >= 0 && f.perPeer() >= 0, f.toString());
  }

  @Test
  void theTimeScaleMultipliesTheHandshakeDeadlineTheQpTimeoutAndTheRequestDeadline() {
    EngineOptions defaults = new EngineOptions();
    ScaleSettings s = withScale(2.5);
    EngineOptions o = s.applyTo(new EngineOptions());
    assertEquals(
        defaults.getHandshakeDeadline().multipliedBy(5).dividedBy(2), o.getHandshakeDeadline());
    assertEquals(defaults.getQpTimeout().multipliedBy(5).dividedBy(2), o.getQpTimeout());
    assertEquals(3, o.getMaxHandshakesInFlight(), "the run's bound of handshakes in flight");
    assertEquals(Duration.ofSeconds(150), s.requestDeadline());
    assertEquals(Duration.ofSeconds(300), s.scaled(Duration.ofSeconds(120)), "a step's wait");
    assertEquals(Duration.ofSeconds(60), withScale(1).requestDeadline());
    assertEquals(defaults.getQpTimeout(), withScale(1).applyTo(new EngineOptions()).getQpTimeout());
  }

  private static ScaleSettings withScale(double timeScale) {
    return new ScaleSettings(
        2, 1, 4096, 4, Duration.ofSeconds(1), Duration.ZERO, "p2p", timeScale, 3);
  }

  private static ScaleRow row(int hosts, double endpoints) {
    return new ScaleRow(hosts, 2, endpoints, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 0, 0);
  }
}
