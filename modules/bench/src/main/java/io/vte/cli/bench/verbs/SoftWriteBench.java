package io.vte.cli.bench.verbs;

import io.vte.cli.bench.baseline.Measure;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Soft-verbs streaming: RDMA WRITE of {@code size}-byte messages from soft0 to soft1 keeping {@code
 * depth} signaled WRs outstanding. The poster sleeps on the CQ notification rather than spinning,
 * so the two NIC threads keep both cores.
 */
public final class SoftWriteBench {

  private SoftWriteBench() {}

  /**
   * @param duration how long to measure (after a short warm-up)
   * @param size message size in bytes
   * @param depth outstanding WRs
   * @return GiB/s
   */
  public static double run(Duration duration, int size, int depth) {
    try (SoftPair p = new SoftPair(size, depth, 0)) {
      Thread me = Thread.currentThread();
      p.cq.setNotificationHandler(cq -> LockSupport.unpark(me));
      WorkRequestBatch wr = WorkRequestBatch.allocate(depth);
      WorkCompletionBatch wcs = WorkCompletionBatch.allocate(depth);
      long warmupEnd = Measure.warmupEnd(duration);
      long start = 0;
      long end = Long.MAX_VALUE;
      long bytes = 0;
      int outstanding = 0;
      while (true) {
        wr.clear();
        while (outstanding + wr.size() < depth) {
          wr.add(
              0,
              WrOpcode.RDMA_WRITE,
              WrFlags.SIGNALED,
              p.source.address(),
              size,
              p.source.lkey(),
              p.target.address(),
              p.target.rkey());
        }
        if (wr.size() > 0 && System.nanoTime() < end) {
          SoftPair.requirePosted(p.qp.postSend(wr));
          outstanding += wr.size();
        }
        int n = SoftPair.progressAndPoll(p.cq, wcs);
        if (n == 0) {
          p.cq.requestNotify();
          n = p.cq.poll(wcs);
          if (n == 0) {
            LockSupport.parkNanos(1_000_000);
            continue;
          }
        }
        if (n < 0) {
          throw new IllegalStateException("CQ poll failed: " + n);
        }
        SoftPair.requireSuccess(wcs, n);
        outstanding -= n;
        long now = System.nanoTime();
        if (start == 0 && now >= warmupEnd) {
          start = now;
          end = start + duration.toNanos();
        } else if (start != 0) {
          bytes += (long) n * size;
          if (now >= end && outstanding == 0) {
            return Measure.gibPerSecond(bytes, now - start);
          }
        }
      }
    }
  }
}
