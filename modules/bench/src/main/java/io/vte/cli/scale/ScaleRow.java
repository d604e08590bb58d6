package io.vte.cli.scale;

import java.util.Locale;

/**
 * What one scale run measured, per host (every figure is the run's total divided by its hosts,
 * except the latencies and rates, which are over the whole cluster).
 *
 * @param hosts hosts (engines) in the run
 * @param nics devices per host
 * @param endpoints endpoints per host, after the all-to-all traffic
 * @param qps live QPs per host
 * @param sockets TCP sockets per host while busy (data connections and the control plane's)
 * @param idleSockets TCP sockets per host once the idle connections closed
 * @param directBusy direct bytes per host while every connection is open (JVM direct pool + Netty)
 * @param directIdle direct bytes per host once the idle connections closed
 * @param heap heap bytes per host after a GC, busy
 * @param threads threads per host
 * @param firstP50Micros first transfer to a new peer (handshake included), median
 * @param firstP99Micros the same, 99th percentile
 * @param handshakesPerSecond handshakes completed per second during the first-transfer storm
 * @param etcdKeys keys under the cluster prefix in etcd (-1 without etcd)
 * @param watchEvents watch events seen on the cluster prefix during the run (-1 without etcd)
 * @param mibPerSecond all-to-all small-batch throughput per host, MiB/s
 * @param failed transfers that did not complete (must be 0)
 */
public record ScaleRow(
    int hosts,
    int nics,
    double endpoints,
    double qps,
    double sockets,
    double idleSockets,
    double directBusy,
    double directIdle,
    double heap,
    double threads,
    double firstP50Micros,
    double firstP99Micros,
    double handshakesPerSecond,
    long etcdKeys,
    long watchEvents,
    double mibPerSecond,
    long failed) {

  /** The table's header, markdown. */
  static final String HEADER =
      "| hosts | NICs | endpoints/host | QPs/host | sockets/host busy | sockets/host idle | direct"
          + " KiB/host busy | direct KiB/host idle | heap KiB/host | threads/host | first transfer"
          + " p50 / p99 ms | handshakes/s | etcd keys | watch events | MiB/s/host | failed |\n"
          + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|";

  /**
   * @return this row as a markdown table line
   */
  String markdown() {
    return String.format(
        Locale.ROOT,
        "| %d | %d | %.1f | %.1f | %.1f | %.1f | %.0f | %.0f | %.0f | %.1f | %.1f / %.1f | %.0f |"
            + " %s | %s | %.1f | %d |",
        hosts,
        nics,
        endpoints,
        qps,
        sockets,
        idleSockets,
        directBusy / 1024,
        directIdle / 1024,
        heap / 1024,
        threads,
        firstP50Micros / 1000,
        firstP99Micros / 1000,
        handshakesPerSecond,
        etcdKeys < 0 ? "-" : Long.toString(etcdKeys),
        watchEvents < 0 ? "-" : Long.toString(watchEvents),
        mibPerSecond,
        failed);
  }
}
