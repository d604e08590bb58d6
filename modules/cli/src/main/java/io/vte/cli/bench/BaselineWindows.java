package io.vte.cli.bench;

import io.vte.api.DeviceStatus;
import io.vte.api.TransferEngine;
import java.time.Duration;

/**
 * The baselines of {@code --baseline}, measured before each window of the engine's run (the load
 * paused), so that a change of load on a shared machine weighs on both sides of the ratios alike:
 * raw NIO loopback streaming over as many connections as the engine opened, NIO over as many
 * connections with as many messages in flight as the run has requests, each acknowledged ({@link
 * NioAckedBench}), and one thread copying the block size between two native buffers as large as the
 * run's region ({@link MemcpyBench}).
 */
public final class BaselineWindows {

  private final TransferEngine engine;
  private final Duration slice;
  private final int blockSize;
  private final long region;
  private final int inFlight;
  private double nioSum;
  private double ackedSum;
  private double memcpySum;
  private int windows;
  private int streams = 1;

  /**
   * @param engine the initiating engine, whose connections the NIO baseline matches
   * @param slice NIO time before each window (the memcpy baseline takes half of it)
   * @param blockSize block size of the run
   * @param region bytes the run's requests cover (the memcpy baseline copies as many)
   * @param inFlight requests the run keeps in flight (the acked NIO baseline keeps as many
   *     messages)
   */
  public BaselineWindows(
      TransferEngine engine, Duration slice, int blockSize, long region, int inFlight) {
    this.engine = engine;
    this.slice = slice;
    this.blockSize = blockSize;
    this.region = region;
    this.inFlight = inFlight;
  }

  /** Measures the baselines once; call before each window. */
  public void beforeWindow() {
    streams = Math.max(1, liveQps(engine));
    nioSum += NioStreamBench.run(slice, blockSize, streams);
    ackedSum += NioAckedBench.run(slice.dividedBy(2), blockSize, streams, inFlight).gibPerSecond();
    memcpySum += MemcpyBench.run(slice.dividedBy(2), blockSize, region);
    windows++;
  }

  /**
   * @return the mean of the windows' baselines
   */
  public BenchReport.Baselines result() {
    return windows == 0
        ? BenchReport.Baselines.NONE
        : new BenchReport.Baselines(
            nioSum / windows, streams, ackedSum / windows, inFlight, memcpySum / windows);
  }

  /**
   * @return the QPs the engine has open now: with soft verbs each is one TCP connection (none when
   *     every slice took the same-host rail)
   */
  static int liveQps(TransferEngine engine) {
    int qps = 0;
    for (DeviceStatus d : engine.diagnostics().devices()) {
      qps += d.liveQpNumbers().size();
    }
    return qps;
  }
}
