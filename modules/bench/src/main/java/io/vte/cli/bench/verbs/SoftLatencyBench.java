package io.vte.cli.bench.verbs;

import io.vte.cli.bench.baseline.Measure;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.time.Duration;
import org.HdrHistogram.Histogram;

/**
 * Soft-verbs small-message latency: an 8-byte signaled RDMA WRITE, one outstanding, busy-polling
 * the CQ.
 */
public final class SoftLatencyBench {

  /** Bytes per WRITE, and per message of its ping-pong baseline. */
  public static final int MESSAGE = 8;

  private SoftLatencyBench() {}

  /**
   * @param duration how long to measure (after a warm-up)
   * @param nicSpinMicros the soft NIC's busy-poll window
   * @return post-to-completion times in nanoseconds
   */
  public static Histogram run(Duration duration, int nicSpinMicros) {
    try (SoftPair p = new SoftPair(4096, 1, nicSpinMicros)) {
      WorkRequestBatch wr = WorkRequestBatch.allocate(1);
      wr.add(
          1,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          p.source.address(),
          MESSAGE,
          p.source.lkey(),
          p.target.address(),
          p.target.rkey());
      WorkCompletionBatch wcs = WorkCompletionBatch.allocate(1);
      Histogram h = new Histogram(3);
      long warmupEnd = Measure.warmupEnd(duration);
      long end = warmupEnd + duration.toNanos();
      long now;
      while ((now = System.nanoTime()) < end) {
        SoftPair.requirePosted(p.qp.postSend(wr));
        int n;
        while ((n = SoftPair.progressAndPoll(p.cq, wcs)) == 0) {
          Thread.yield(); // busy-poll, but give the NIC threads the core at once on 2 cores
        }
        long rtt = System.nanoTime() - now;
        if (n < 0) {
          throw new IllegalStateException("CQ poll failed: " + n);
        }
        SoftPair.requireSuccess(wcs, n);
        if (now >= warmupEnd) {
          h.recordValue(rtt);
        }
      }
      return h;
    }
  }
}
