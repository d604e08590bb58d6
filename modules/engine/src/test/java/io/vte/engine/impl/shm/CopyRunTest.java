package io.vte.engine.impl.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Which queued slices a copier moves with one copy, and which start the next run. */
class CopyRunTest {

  private static final int K64 = 64 * 1024;
  private static final Slice STOP = new Slice(null, -1, WrOpcode.RDMA_WRITE, 0, 0, 0);

  private final LinkedBlockingQueue<Slice> queue = new LinkedBlockingQueue<>();
  private final CopyRun run = new CopyRun();
  private final AtomicInteger waits = new AtomicInteger();

  /** What arrives while the copier waits (queued by the wait hook, so nothing blocks for good). */
  private Slice arriving;

  private static Slice slice(int rkey, int opcode, long local, long remote, int length) {
    Slice s = new Slice(null, 0, opcode, local, remote, length);
    s.assign(null, 0, rkey);
    return s;
  }

  private void take() throws InterruptedException {
    run.clear();
    run.take(
        queue,
        () -> {
          waits.incrementAndGet();
          if (arriving != null) {
            queue.add(arriving);
          }
        },
        STOP);
  }

  @Test
  void slicesContinuingEachOtherInBothMemoriesAreOneRun() throws Exception {
    for (int i = 0; i < 4; i++) {
      queue.add(slice(3, WrOpcode.RDMA_WRITE, 1000 + i * K64, 9000 + i * K64, K64));
    }
    queue.add(slice(3, WrOpcode.RDMA_WRITE, 1000 + 5 * K64, 9000 + 5 * K64, K64)); // a gap
    take();
    assertEquals(4, run.count());
    assertEquals(4 * K64, run.bytes());
    assertEquals(0, waits.get(), "nothing waited while slices were queued");
    take();
    assertEquals(1, run.count(), "the slice after the gap starts the next run");
    assertEquals(1000 + 5 * K64, run.get(0).localAddress());
  }

  @Test
  void anotherTargetOpcodeOrRemoteRangeOrACheckedSliceEndsTheRun() throws Exception {
    Slice first = slice(1, WrOpcode.RDMA_WRITE, 0, 0, K64);
    Slice otherTarget = slice(2, WrOpcode.RDMA_WRITE, K64, K64, K64);
    Slice otherOpcode = slice(2, WrOpcode.RDMA_READ, 2 * K64, 2 * K64, K64);
    Slice remoteGap = slice(2, WrOpcode.RDMA_READ, 3 * K64, 7 * K64, K64);
    Slice checked = slice(2, WrOpcode.RDMA_READ, 4 * K64, 8 * K64, K64);
    checked.checkIntegrity(true);
    Slice afterChecked = slice(2, WrOpcode.RDMA_READ, 5 * K64, 9 * K64, K64);
    for (Slice s : new Slice[] {first, otherTarget, otherOpcode, remoteGap, checked}) {
      queue.add(s);
    }
    queue.add(afterChecked);
    for (Slice s : new Slice[] {first, otherTarget, otherOpcode, remoteGap, checked}) {
      take();
      assertEquals(1, run.count(), s.toString());
      assertSame(s, run.get(0));
    }
    take();
    assertSame(afterChecked, run.get(0), "a checked slice is copied and checked alone");
  }

  @Test
  void aRunStopsAtItsByteLimitAndAStopIsTakenAlone() throws Exception {
    int n = CopyRun.MAX_BYTES / K64 + 2;
    for (int i = 0; i < n; i++) {
      queue.add(slice(0, WrOpcode.RDMA_WRITE, (long) i * K64, (long) i * K64, K64));
    }
    queue.add(STOP);
    take();
    assertEquals(CopyRun.MAX_BYTES, run.bytes());
    take();
    assertEquals(2, run.count());
    take();
    assertSame(STOP, run.get(0));
    assertEquals(1, run.count());
    arriving = slice(0, WrOpcode.RDMA_WRITE, 0, 0, K64);
    assertEquals(0, waits.get());
    take();
    assertSame(arriving, run.get(0));
    assertEquals(1, waits.get(), "the empty queue was waited on once, after the hook");
  }

  @Test
  void slicesAreReportedOnceEachInRunOrderUntilNoneIsLeft() throws Exception {
    List<Slice> done = new ArrayList<>();
    SliceCallback record =
        new SliceCallback() {
          @Override
          public void onSliceDone(Slice slice, int status, Throwable cause) {
            done.add(slice);
          }

          @Override
          public boolean isAbandoned() {
            return false;
          }
        };
    for (int i = 0; i < 3; i++) {
      Slice s = new Slice(record, i, WrOpcode.RDMA_WRITE, (long) i * K64, (long) i * K64, K64);
      s.assign(null, 0, 0);
      queue.add(s);
    }
    take();
    run.reportNext(0, null);
    assertTrue(run.unreported(), "two are left, as after a fault reported late");
    while (run.unreported()) {
      run.reportNext(1, null);
    }
    assertEquals(3, done.size());
    for (int i = 0; i < 3; i++) {
      assertEquals(i, done.get(i).index());
    }
  }
}
