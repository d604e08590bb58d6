package io.vte.cli.scale;

import java.util.Locale;

/**
 * A reconnect storm: every host closed its engine and started a new one on the same addresses and
 * ports at the same moment, then opened every peer's segment and wrote to it.
 *
 * @param hosts hosts in the run
 * @param meshMillis from the restart's start until every host had written to every peer
 * @param handshakes handshakes the new engines started (all hosts)
 * @param handshakesFailed of those, the ones that failed
 * @param handshakeRetries connect requests sent again after a refused attempt and a backoff wait
 * @param backoffMillis total backoff wait before those retries (all hosts)
 * @param retries slices resubmitted after a failure (all hosts)
 * @param failedInMesh first transfers after the restart that failed
 * @param failedAfter transfers of the all-to-all window after the mesh that failed (must be 0)
 */
record StormRow(
    int hosts,
    double meshMillis,
    long handshakes,
    long handshakesFailed,
    long handshakeRetries,
    double backoffMillis,
    long retries,
    long failedInMesh,
    long failedAfter) {

  /** The table's header, markdown. */
  static final String HEADER =
      "| hosts | restart to full mesh ms | handshakes | failed handshakes | handshake retries |"
          + " backoff ms | slice retries | failed first transfers | failed after |\n"
          + "|---|---|---|---|---|---|---|---|---|";

  /**
   * @return this row as a markdown table line
   */
  String markdown() {
    return String.format(
        Locale.ROOT,
        "| %d | %.0f | %d | %d | %d | %.0f | %d | %d | %d |",
        hosts,
        meshMillis,
        handshakes,
        handshakesFailed,
        handshakeRetries,
        backoffMillis,
        retries,
        failedInMesh,
        failedAfter);
  }
}
