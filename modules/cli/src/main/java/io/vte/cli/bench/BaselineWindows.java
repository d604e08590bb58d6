package io.vte.cli.bench;

import io.vte.api.DeviceStatus;
import io.vte.api.TransferEngine;
import java.time.Duration;

/**
 * The baselines of {@code --baseline}, measured before each window of the engine's run (the load
 * paused), so that a change of load on a shared machine weighs on both sides of the ratios alike:
 * raw NIO loopback streaming over as many connections as the engine opened, and one thread copying
 * the block size between two native buffers as large as the run's region ({@link MemcpyBench}).
 */
public final class BaselineWindows {

  private final TransferEngine engine;
  private final Duration slice;
  private final int blockSize;
  private final long region;
  private double nioSum;
  private double memcpySum;
  private int windows;
  private int streams = 1;

  /**
   * @param engine the initiating engine, whose connections the NIO baseline matches
   * @param slice NIO time before each window (the memcpy baseline takes half of it)
   * @param blockSize block size of the run
   * @param region bytes the run's requests cover (the memcpy baseline copies as many)
   */
  public BaselineWindows(TransferEngine engine, Duration slice, int blockSize, long region) {
    this.engine = engine;
    this.slice = slice;
    this.blockSize = blockSize;
    this.region = region;
  }

  /** Measures both baselines once; call before each window. */
  public void beforeWindow() {
    streams = Math.max(1, liveQps(engine));
    nioSum += NioStreamBench.run(slice, blockSize, streams);
    memcpySum += MemcpyBench.run(slice.dividedBy(2), blockSize, region);
    windows++;
  }

  /**
   * @return the mean of the windows' baselines
   */
  public BenchReport.Baselines result() {
    return windows == 0
        ? BenchReport.Baselines.NONE
        : new BenchReport.Baselines(nioSum / windows, streams, memcpySum / windows);
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
