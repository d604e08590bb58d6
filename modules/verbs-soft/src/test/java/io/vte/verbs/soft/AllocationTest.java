package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Posting and polling allocate (next to) nothing on the caller's thread. */
class AllocationTest {

  @Test
  void postAndPollAllocateAlmostNothingPerWorkRequest() {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      QueuePair a = f.pair(cq, 16, 4, 1, Fabric.LOADED).a();
      MemoryRegion src =
          f.pd(0).registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.LOCAL_WRITE);
      MemoryRegion dst =
          f.pd(1).registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.ALL_REMOTE);
      WorkRequestBatch wr = WorkRequestBatch.allocate(1);
      wr.add(
          1,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          src.address(),
          8,
          src.lkey(),
          dst.address(),
          dst.rkey());
      WorkCompletionBatch wcs = WorkCompletionBatch.allocate(16);
      long me = Thread.currentThread().getId();
      int ops = 3000;
      long allocated = 0;
      for (int phase = 0; phase < 2; phase++) { // phase 0 warms up
        long before = mx.getThreadAllocatedBytes(me);
        for (int i = 0; i < ops; i++) {
          assertEquals(PostStatus.OK, a.postSend(wr));
          int n;
          while ((n = cq.poll(wcs)) == 0) {
            Thread.onSpinWait();
          }
          assertEquals(1, n);
          assertEquals(0, wcs.status(0));
        }
        allocated = mx.getThreadAllocatedBytes(me) - before;
      }
      // a hand-off to the NIC costs one queue node (24 B); the direct path (the usual one) costs
      // nothing
      assertTrue(
          allocated / ops <= 8, "bytes allocated per post+poll: " + allocated / (double) ops);
    }
  }

  @Test
  void eachNicThreadAllocatesAlmostNothingPerLargeFrame() {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      QueuePair a = f.pair(cq, 16, 4, 1, Fabric.LOADED).a();
      int size = 64 * 1024;
      // two regions per side, alternated: switching regions must not cost a view either
      MemoryRegion[] src = new MemoryRegion[2];
      MemoryRegion[] dst = new MemoryRegion[2];
      for (int i = 0; i < 2; i++) {
        src[i] =
            f.pd(0).registerMemory(ByteBuffer.allocateDirect(size * 4), AccessFlags.LOCAL_WRITE);
        dst[i] =
            f.pd(1).registerMemory(ByteBuffer.allocateDirect(size * 4), AccessFlags.ALL_REMOTE);
      }
      WorkRequestBatch wr = WorkRequestBatch.allocate(8);
      for (int i = 0; i < 8; i++) {
        MemoryRegion s = src[i % 2];
        MemoryRegion d = dst[(i / 2) % 2];
        long off = (long) size * (i / 2);
        wr.add(
            i,
            i % 4 < 2 ? WrOpcode.RDMA_WRITE : WrOpcode.RDMA_READ,
            WrFlags.SIGNALED,
            s.address() + off,
            size,
            s.lkey(),
            d.address() + off,
            d.rkey());
      }
      WorkCompletionBatch wcs = WorkCompletionBatch.allocate(16);
      long nic0 = nicThread("soft0");
      long nic1 = nicThread("soft1");
      int rounds = 1250; // 10,000 frames of 64 KiB
      long frames = rounds * 8L;
      double[] perFrame = new double[2];
      for (int phase = 0; phase < 2; phase++) { // phase 0 warms up
        long before0 = mx.getThreadAllocatedBytes(nic0);
        long before1 = mx.getThreadAllocatedBytes(nic1);
        for (int r = 0; r < rounds; r++) {
          assertEquals(PostStatus.OK, a.postSend(wr));
          int got = 0;
          while (got < 8) {
            int n = cq.poll(wcs);
            for (int i = 0; i < n; i++) {
              assertEquals(0, wcs.status(i));
            }
            got += n;
            if (n == 0) {
              Thread.onSpinWait();
            }
          }
        }
        perFrame[0] = (mx.getThreadAllocatedBytes(nic0) - before0) / (double) frames;
        perFrame[1] = (mx.getThreadAllocatedBytes(nic1) - before1) / (double) frames;
      }
      System.out.printf(
          "NIC bytes allocated per 64 KiB frame: requester %.2f, responder %.2f%n",
          perFrame[0], perFrame[1]);
      assertTrue(
          perFrame[0] < 32,
          "bytes allocated by the requester's NIC thread per 64 KiB frame: " + perFrame[0]);
      assertTrue(
          perFrame[1] < 32,
          "bytes allocated by the responder's NIC thread per 64 KiB frame: " + perFrame[1]);
    }
  }

  private static long nicThread(String device) {
    long[] ids =
        Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("vte-soft-nic-" + device))
            .mapToLong(Thread::getId)
            .toArray();
    assertEquals(1, ids.length, "NIC threads of " + device);
    return ids[0];
  }
}
