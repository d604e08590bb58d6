package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A batch of posted WRs leaves in few gathering writes (many frames per {@code writev}: header
 * runs, inline payloads and payload windows interleaved): every byte still lands where its WR says,
 * in order; a bad frame in the middle of a run stops the run there; a source region closed under a
 * run never leaks.
 */
class CoalescedFramesTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final int DEPTH = 128;

  /**
   * Sizes around every threshold of the send and receive paths: inline, copied, direct, gather
   * limits.
   */
  private static final int[] SIZES = {
    1,
    7,
    32,
    64,
    100,
    2047,
    2048,
    2049,
    8160,
    8192,
    8193,
    16384,
    16385,
    65536,
    65537,
    200_000,
    1 << 20,
    (1 << 20) + 3
  };

  private static final int REGION = 32 << 20;

  @Test
  void everyFrameOfLargeMixedBatchesLandsIntactAndCompletesInOrder() {
    SplittableRandom random = new SplittableRandom(42);
    long source = DirectMemory.allocate(REGION);
    long target = DirectMemory.allocate(REGION);
    long remote = DirectMemory.allocate(REGION); // READs fetch from here...
    long readback = DirectMemory.allocate(REGION); // ...into here, at the same offsets
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(DEPTH);
      QueuePair a = f.pair(cq, DEPTH, 4, 1, Fabric.LOADED).a();
      MemoryRegion src = f.pd(0).registerMemory(source, REGION, AccessFlags.LOCAL_WRITE);
      MemoryRegion dst = f.pd(1).registerMemory(target, REGION, AccessFlags.ALL_REMOTE);
      MemoryRegion readable = f.pd(1).registerMemory(remote, REGION, AccessFlags.ALL_REMOTE);
      MemoryRegion back = f.pd(0).registerMemory(readback, REGION, AccessFlags.LOCAL_WRITE);
      WorkRequestBatch wr = WorkRequestBatch.allocate(DEPTH);
      long[] offsets = new long[DEPTH];
      int[] lengths = new int[DEPTH];
      boolean[] reads = new boolean[DEPTH];
      for (int round = 0; round < 8; round++) {
        fillRandom(source, REGION, random);
        fillRandom(remote, REGION, random);
        DirectMemory.fill(target, REGION, (byte) 0);
        DirectMemory.fill(readback, REGION, (byte) 0);
        wr.clear();
        long at = 0;
        int n = 16 + random.nextInt(DEPTH - 16);
        for (int i = 0; i < n; i++) {
          int len = SIZES[random.nextInt(SIZES.length)];
          if (at + len > REGION) {
            len = 1;
          }
          boolean inline = len <= 64 && random.nextBoolean();
          offsets[i] = at;
          lengths[i] = len;
          reads[i] = random.nextInt(6) == 0; // READ responses break runs of ACKs
          if (reads[i]) {
            wr.add(
                i,
                WrOpcode.RDMA_READ,
                WrFlags.SIGNALED,
                readback + at,
                len,
                back.lkey(),
                remote + at,
                readable.rkey());
          } else {
            wr.add(
                i,
                WrOpcode.RDMA_WRITE,
                WrFlags.SIGNALED | (inline ? WrFlags.INLINE : 0),
                source + at,
                len,
                src.lkey(),
                target + at,
                dst.rkey());
          }
          at += len + random.nextInt(64); // gaps must stay untouched
        }
        assertEquals(PostStatus.OK, a.postSend(wr));
        List<Fabric.Wc> wcs = Fabric.await(cq, n, DEADLINE);
        for (int i = 0; i < n; i++) {
          assertEquals(i, wcs.get(i).wrId(), "round " + round + ": completion order");
          assertEquals(WcStatus.SUCCESS.code(), wcs.get(i).status(), "round " + round + " wr " + i);
        }
        assertLanded(source, target, offsets, lengths, reads, false, n, round);
        assertLanded(remote, readback, offsets, lengths, reads, true, n, round);
      }
    } finally {
      DirectMemory.free(source);
      DirectMemory.free(target);
      DirectMemory.free(remote);
      DirectMemory.free(readback);
    }
  }

  @Test
  void
      aBadRkeyInTheMiddleOfACoalescedRunFailsThatWriteFlushesTheRestAndLeavesTheirTargetsUntouched() {
    int size = 64 * 1024;
    int n = 48;
    for (int bad : new int[] {1, 17, 30, 47}) {
      Fabric f = new Fabric(2);
      {
        CompletionQueue cq = f.ctx(0).createCq(DEPTH);
        QueuePair a = f.pair(cq, DEPTH, 4, 1, Fabric.LOADED).a();
        long source = DirectMemory.allocate((long) size * n);
        long target = DirectMemory.allocate((long) size * n);
        try {
          DirectMemory.fill(source, (long) size * n, (byte) 0x77);
          DirectMemory.fill(target, (long) size * n, (byte) 0);
          MemoryRegion src = f.pd(0).registerMemory(source, size * n, AccessFlags.LOCAL_WRITE);
          MemoryRegion dst = f.pd(1).registerMemory(target, size * n, AccessFlags.ALL_REMOTE);
          WorkRequestBatch wr = WorkRequestBatch.allocate(n);
          for (int i = 0; i < n; i++) {
            long off = (long) size * i;
            wr.add(
                i,
                WrOpcode.RDMA_WRITE,
                WrFlags.SIGNALED,
                source + off,
                size,
                src.lkey(),
                target + off,
                i == bad ? dst.rkey() + 0x1000 : dst.rkey());
          }
          assertEquals(PostStatus.OK, a.postSend(wr));
          List<Fabric.Wc> wcs = Fabric.await(cq, n, DEADLINE);
          for (int i = 0; i < n; i++) {
            WcStatus expected =
                i < bad
                    ? WcStatus.SUCCESS
                    : i == bad ? WcStatus.REM_ACCESS_ERR : WcStatus.WR_FLUSH_ERR;
            assertEquals(i, wcs.get(i).wrId());
            assertEquals(expected.code(), wcs.get(i).status(), "bad " + bad + ", wr " + i);
            byte want = i < bad ? (byte) 0x77 : 0;
            long off = (long) size * i;
            for (int k = 0; k < size; k += 509) {
              assertEquals(
                  want,
                  DirectMemory.getByte(target + off + k),
                  "bad " + bad + ", wr " + i + " byte " + k);
            }
            assertEquals(want, DirectMemory.getByte(target + off + size - 1));
          }
        } finally {
          f.close(); // the regions go before their memory
          DirectMemory.free(source);
          DirectMemory.free(target);
        }
      }
    }
  }

  /**
   * Rounds of 160 x 64 KiB WRITEs from four source regions, interleaved so every gathering write
   * holds payloads of all four; once data lands, one source region is closed and its memory
   * overwritten with a sentinel. No sentinel byte may ever reach the target, every WR completes (no
   * hang), the first failure is the closed region's LOC_PROT_ERR and everything after it is
   * flushed.
   */
  @Test
  void aSourceRegionClosedUnderACoalescedRunNeverLeaksAndFailsCleanly() {
    int size = 64 * 1024;
    int n = 160;
    int regions = 4;
    byte sentinel = (byte) 0xC3;
    int caught = 0;
    for (int round = 0; round < 16; round++) {
      long[] source = new long[regions];
      long target = DirectMemory.allocate((long) size * n);
      try (Fabric f = new Fabric(2)) {
        CompletionQueue cq = f.ctx(0).createCq(n);
        QueuePair a = f.pair(cq, n, 4, 1, Fabric.LOADED).a();
        MemoryRegion[] src = new MemoryRegion[regions];
        for (int r = 0; r < regions; r++) {
          source[r] = DirectMemory.allocate((long) size * n);
          DirectMemory.fill(source[r], (long) size * n, (byte) (r + 1));
          src[r] = f.pd(0).registerMemory(source[r], size * n, AccessFlags.LOCAL_WRITE);
        }
        DirectMemory.fill(target, (long) size * n, (byte) 0);
        MemoryRegion dst = f.pd(1).registerMemory(target, size * n, AccessFlags.ALL_REMOTE);
        WorkRequestBatch wr = WorkRequestBatch.allocate(n);
        for (int i = 0; i < n; i++) {
          long off = (long) size * i;
          wr.add(
              i,
              WrOpcode.RDMA_WRITE,
              WrFlags.SIGNALED,
              source[i % regions] + off,
              size,
              src[i % regions].lkey(),
              target + off,
              dst.rkey());
        }
        int victim = 1 + round % (regions - 1);
        assertEquals(PostStatus.OK, a.postSend(wr));
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (DirectMemory.getByte(target) == 0) {
          assertTrue(System.nanoTime() - end < 0, "no data landed");
          Thread.onSpinWait();
        }
        src[victim].close();
        DirectMemory.fill(source[victim], (long) size * n, sentinel);

        List<Fabric.Wc> wcs = Fabric.await(cq, n, DEADLINE);
        int firstFailure = n;
        for (int i = 0; i < n; i++) {
          assertEquals(i, wcs.get(i).wrId());
          int status = wcs.get(i).status();
          if (i < firstFailure && status != WcStatus.SUCCESS.code()) {
            firstFailure = i;
            assertEquals(
                victim,
                i % regions,
                "round " + round + ": first failure is wr " + i + " with " + WcStatus.of(status));
            assertEquals(WcStatus.LOC_PROT_ERR.code(), status, "round " + round + " wr " + i);
          } else if (i > firstFailure) {
            assertEquals(WcStatus.WR_FLUSH_ERR.code(), status, "round " + round + " wr " + i);
          }
        }
        if (firstFailure < n) {
          caught++;
        }
        for (int i = 0; i < n; i++) {
          long off = (long) size * i;
          byte want = (byte) (i % regions + 1);
          for (int k = 0; k < size; k += 257) {
            byte got = DirectMemory.getByte(target + off + k);
            assertTrue(
                got != sentinel,
                "round " + round + ": closed source memory reached wr " + i + " at " + k);
            assertTrue(
                got == want || (got == 0 && i >= firstFailure),
                "round " + round + " wr " + i + " byte " + k);
          }
        }
        for (int r = 0; r < regions; r++) {
          src[r].close();
        }
        dst.close();
      } finally {
        for (long s : source) {
          if (s != 0) {
            DirectMemory.free(s);
          }
        }
        DirectMemory.free(target);
      }
    }
    assertTrue(caught > 0, "no round closed the region before its frames were sent");
  }

  private static void fillRandom(long address, int length, SplittableRandom random) {
    ByteBuffer view = DirectMemory.wrap(address, length);
    for (int i = 0; i + Long.BYTES <= length; i += Long.BYTES) {
      view.putLong(i, random.nextLong());
    }
  }

  /**
   * Checks the WRs whose {@code reads} flag equals {@code read}: copied bytes equal, bytes between
   * untouched.
   */
  private static void assertLanded(
      long source,
      long target,
      long[] offsets,
      int[] lengths,
      boolean[] reads,
      boolean read,
      int n,
      int round) {
    long end = 0;
    for (int i = 0; i < n; i++) {
      if (reads[i] != read) {
        continue;
      }
      long off = offsets[i];
      for (long gap = end; gap < off; gap++) {
        assertEquals(
            0,
            DirectMemory.getByte(target + gap),
            "round " + round + ": gap byte at " + gap + " written");
      }
      int k =
          DirectMemory.wrap(source + off, lengths[i])
              .mismatch(DirectMemory.wrap(target + off, lengths[i]));
      assertEquals(
          -1, k, "round " + round + ": wr " + i + " (" + lengths[i] + " B) differs at byte " + k);
      end = off + lengths[i];
    }
  }
}
