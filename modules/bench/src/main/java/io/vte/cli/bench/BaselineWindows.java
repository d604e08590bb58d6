package io.vte.cli.bench;

import io.vte.api.DeviceStatus;
import io.vte.api.RailStatus;
import io.vte.api.TransferEngine;
import io.vte.cli.bench.baseline.MemcpyBench;
import io.vte.cli.bench.baseline.NioAckedBench;
import io.vte.cli.bench.baseline.NioStreamBench;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The baselines of {@code --baseline}, measured before each window of the engine's run (the load
 * paused), so that a change of load on a shared machine weighs on both sides of the ratios alike:
 * raw NIO loopback streaming over as many connections as carried the engine's traffic since the
 * last window ({@link NioStreamBench}); NIO over as many connections with as many messages in
 * flight as the run has requests, each acknowledged, once with blocking sockets and once polling as
 * the engine polls ({@link NioAckedBench}); a memcpy of the block size on one thread and on as many
 * threads as the engine's same-host rail runs copiers ({@link MemcpyBench}).
 */
public final class BaselineWindows {

  /** Baselines measured before each window; each gets an equal share of the slice. */
  private static final int BASELINES = 5;

  private final TransferEngine engine;
  private final NioAckedBench.Polling polling;
  private final Duration part;
  private final int blockSize;
  private final long region;
  private final int inFlight;

  /** Bytes each local device's network rails had moved at the last window. */
  private final Map<String, Long> movedByDevice = new HashMap<>();

  private double nioSum;
  private double ackedBlockingSum;
  private double ackedPollingSum;
  private double memcpySum;
  private double memcpyThreadsSum;
  private int windows;

  /**
   * Windows before which the same-host rail's copiers ran, so the memcpy on as many was measured.
   */
  private int memcpyThreadsWindows;

  private int streams = 1;
  private int connections;
  private int copiers;

  /**
   * @param engine the initiating engine, whose connections the NIO baselines match
   * @param polling how the engine waits for work ({@code busyPollMicros}, {@code
   *     nicBusyPollMicros}): the polling acked baseline does the same
   * @param slice baseline time before each window, shared by the baselines
   * @param blockSize block size of the run
   * @param region bytes the run's requests cover (the memcpy baselines copy as many)
   * @param inFlight requests the run keeps in flight (the acked NIO baselines keep as many
   *     messages)
   */
  public BaselineWindows(
      TransferEngine engine,
      NioAckedBench.Polling polling,
      Duration slice,
      int blockSize,
      long region,
      int inFlight) {
    this.engine = engine;
    this.polling = polling;
    this.part = slice.multipliedBy(2).dividedBy(BASELINES);
    this.blockSize = blockSize;
    this.region = region;
    this.inFlight = inFlight;
  }

  /** Measures the baselines once; call before each window. */
  public void beforeWindow() {
    connections = connectionsThatCarried();
    streams = Math.max(1, connections);
    copiers = Math.max(copiers, SameHostCopiers.count(engine));
    nioSum += NioStreamBench.run(part, blockSize, streams);
    double blocking =
        NioAckedBench.run(part, blockSize, streams, inFlight, NioAckedBench.Polling.BLOCKING)
            .gibPerSecond();
    ackedBlockingSum += blocking;
    // an engine that does not poll is matched by the blocking run itself
    ackedPollingSum +=
        polling.blocking()
            ? blocking
            : NioAckedBench.run(part, blockSize, streams, inFlight, polling).gibPerSecond();
    double one = MemcpyBench.run(part, blockSize, region, 1).gibPerSecond();
    memcpySum += one;
    if (copiers > 0) {
      memcpyThreadsSum +=
          copiers == 1 ? one : MemcpyBench.run(part, blockSize, region, copiers).gibPerSecond();
      memcpyThreadsWindows++;
    }
    windows++;
  }

  /**
   * @return the mean of the windows' baselines
   */
  public BenchReport.Baselines result() {
    return windows == 0
        ? BenchReport.Baselines.NONE
        : new BenchReport.Baselines(
            nioSum / windows,
            streams,
            connections,
            ackedBlockingSum / windows,
            ackedPollingSum / windows,
            inFlight,
            polling,
            memcpySum / windows,
            memcpyThreadsWindows == 0 ? Double.NaN : memcpyThreadsSum / memcpyThreadsWindows,
            copiers);
  }

  /**
   * @return the QPs of the local devices whose network rails moved bytes since the last call (the
   *     warm-up's, at the first): with soft verbs each is one TCP connection; none when every slice
   *     took the same-host rail
   */
  private int connectionsThatCarried() {
    Map<String, Long> moved = new HashMap<>();
    for (RailStatus r : engine.diagnostics().rails()) {
      if (!r.sameHost()) {
        moved.merge(r.localDevice(), r.movedBytes(), Long::sum);
      }
    }
    int qps = 0;
    for (DeviceStatus d : engine.diagnostics().devices()) {
      long now = moved.getOrDefault(d.name(), 0L);
      if (now > movedByDevice.getOrDefault(d.name(), 0L)) {
        qps += d.liveQpNumbers().size();
      }
      movedByDevice.put(d.name(), now);
    }
    return qps;
  }
}
