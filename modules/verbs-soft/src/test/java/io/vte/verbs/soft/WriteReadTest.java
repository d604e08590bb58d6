package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WcOpcode;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class WriteReadTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  @Test
  void writeThenReadBackAcrossTwoDevicesIsByteExact() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cqA = f.ctx(0).createCq(64);
      CompletionQueue cqB = f.ctx(1).createCq(64);
      QueuePair a = f.qp(0, cqA, 16);
      QueuePair b = f.qp(1, cqB, 16);
      Fabric.connect(a, f.ctx(0), b, f.ctx(1), Fabric.LOADED);
      int size = 1 << 20;
      ByteBuffer src = ByteBuffer.allocateDirect(size);
      ByteBuffer dst = ByteBuffer.allocateDirect(size);
      ByteBuffer back = ByteBuffer.allocateDirect(size);
      new SplittableRandom(7).ints(size / 4).forEach(src::putInt);
      MemoryRegion mSrc = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
      MemoryRegion mBack = f.pd(0).registerMemory(back, AccessFlags.LOCAL_WRITE);
      MemoryRegion mDst = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
      WorkRequestBatch wr = WorkRequestBatch.allocate(4);
      wr.add(
          1,
          WrOpcode.RDMA_WRITE,
          WrFlags.SIGNALED,
          mSrc.address(),
          size,
          mSrc.lkey(),
          mDst.address(),
          mDst.rkey());
      wr.add(
          2,
          WrOpcode.RDMA_READ,
          WrFlags.SIGNALED,
          mBack.address(),
          size,
          mBack.lkey(),
          mDst.address(),
          mDst.rkey());
      assertEquals(PostStatus.OK, a.postSend(wr));
      List<Fabric.Wc> wcs = Fabric.await(cqA, 2, DEADLINE);
      assertEquals(1, wcs.get(0).wrId());
      assertEquals(WcStatus.SUCCESS.code(), wcs.get(0).status());
      assertEquals(WcOpcode.RDMA_WRITE, wcs.get(0).opcode());
      assertEquals(2, wcs.get(1).wrId());
      assertEquals(WcStatus.SUCCESS.code(), wcs.get(1).status());
      assertEquals(WcOpcode.RDMA_READ, wcs.get(1).opcode());
      assertEquals(size, wcs.get(1).byteLen());
      src.clear();
      dst.clear();
      back.clear();
      assertEquals(src, dst);
      assertEquals(src, back);
      Fabric.assertQuiet(cqB, Duration.ofMillis(20));
    }
  }
}
