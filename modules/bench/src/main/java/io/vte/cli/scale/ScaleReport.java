package io.vte.cli.scale;

import java.util.List;
import java.util.Locale;

/** The markdown of a scale sweep: settings, the table, the per-peer fits and their projection. */
final class ScaleReport {

  private ScaleReport() {}

  /**
   * @param rows the runs, sorted by hosts
   * @param storms their reconnect storms (empty when none ran)
   * @param s their settings
   * @param stormKind how the storms restarted the hosts
   * @return the report
   */
  static String markdown(
      List<ScaleRow> rows, List<StormRow> storms, ScaleSettings s, String stormKind) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            Locale.ROOT,
            "%d NICs per host, %d owner(s) per device, %d B requests, batches of %d, %d ms window,"
                + " idleConnectionMs %d, metadata %s, timeouts x %s, handshakes in flight per owner"
                + " %d%n%n",
            s.nics(),
            s.workers(),
            s.requestBytes(),
            s.batch(),
            s.window().toMillis(),
            s.idle().toMillis(),
            s.metadataUri(),
            s.timeScale(),
            s.handshakesInFlight()));
    b.append(ScaleRow.HEADER).append('\n');
    for (ScaleRow r : rows) {
      b.append(r.markdown()).append('\n');
    }
    if (rows.size() >= 2) {
      List<ScaleFit> fits =
          List.of(
              ScaleFit.of("endpoints", "count", rows, ScaleRow::endpoints),
              ScaleFit.of("QPs", "count", rows, ScaleRow::qps),
              ScaleFit.of("sockets busy", "count", rows, ScaleRow::sockets),
              ScaleFit.of("sockets idle", "count", rows, ScaleRow::idleSockets),
              ScaleFit.of("direct busy", "KiB", rows, r -> r.directBusy() / 1024),
              ScaleFit.of("direct idle", "KiB", rows, r -> r.directIdle() / 1024),
              ScaleFit.of("heap", "KiB", rows, r -> r.heap() / 1024),
              ScaleFit.of("threads", "count", rows, ScaleRow::threads));
      b.append('\n').append(ScaleFit.header()).append('\n');
      for (ScaleFit f : fits) {
        b.append(f.markdown()).append('\n');
      }
      double endpointsPerPeer = fits.get(0).perPeer();
      if (endpointsPerPeer > 0) {
        b.append(
            String.format(
                Locale.ROOT,
                "%nper endpoint: direct %.1f KiB busy, %.1f KiB idle; heap %.1f KiB%n",
                fits.get(4).perPeer() / endpointsPerPeer,
                fits.get(5).perPeer() / endpointsPerPeer,
                fits.get(6).perPeer() / endpointsPerPeer));
      }
    }
    if (!storms.isEmpty()) {
      b.append("\nreconnect storm (" + stormKind + ")\n\n").append(StormRow.HEADER).append('\n');
      for (StormRow r : storms) {
        b.append(r.markdown()).append('\n');
      }
    }
    return b.toString();
  }
}
