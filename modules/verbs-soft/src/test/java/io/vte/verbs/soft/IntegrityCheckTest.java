package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpState;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link WrFlags#INTEGRITY} on the soft wire: a WRITE or READ whose bytes were damaged on the wire
 * (after the sender's CRC32C) or in the destination after the copy completes with {@link
 * WcStatus#INTEGRITY_ERR}, its QP staying in RTS for the next work request; without the flag the
 * same damage completes as SUCCESS with wrong bytes. Sizes cover payloads staged with their header
 * and payloads sent from their memory.
 */
class IntegrityCheckTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  /** Two connected QPs, a random source on device 0 and a target region on device 1. */
  private static final class Setup {
    final Fabric f = new Fabric(2);
    final CompletionQueue cq = f.ctx(0).createCq(64);
    final QueuePair a;
    final ByteBuffer src;
    final ByteBuffer dst;
    final MemoryRegion mSrc;
    final MemoryRegion mDst;

    Setup(int size) {
      a = f.pair(cq, 16, Fabric.LOADED).a();
      src = ByteBuffer.allocateDirect(size);
      dst = ByteBuffer.allocateDirect(size);
      new SplittableRandom(size).ints(size / 4).forEach(src::putInt);
      mSrc = f.pd(0).registerMemory(src, AccessFlags.LOCAL_WRITE);
      mDst = f.pd(1).registerMemory(dst, AccessFlags.ALL_REMOTE);
    }

    /** Posts one signaled WR and returns its completion status. */
    int run(int opcode, int flags) {
      WorkRequestBatch wr = WorkRequestBatch.allocate(1);
      wr.add(
          1,
          opcode,
          WrFlags.SIGNALED | flags,
          mSrc.address(),
          src.capacity(),
          mSrc.lkey(),
          mDst.address(),
          mDst.rkey());
      assertEquals(PostStatus.OK, a.postSend(wr));
      List<Fabric.Wc> wcs = Fabric.await(cq, 1, DEADLINE);
      return wcs.get(0).status();
    }

    boolean same() {
      return src.clear().equals(dst.clear());
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {4096, 256 << 10})
  void aWriteDamagedOnTheWireFailsIntegrityAndTheQpGoesOn(int size) {
    Setup s = new Setup(size);
    try (Fabric f = s.f) {
      f.provider.faults().corruptFrames("soft0", 1.0, 1);
      assertEquals(
          WcStatus.INTEGRITY_ERR.code(), s.run(WrOpcode.RDMA_WRITE, WrFlags.INTEGRITY), "checked");
      assertEquals(QpState.RTS, s.a.state(), "a damaged payload is not a QP error");
      assertEquals(WcStatus.SUCCESS.code(), s.run(WrOpcode.RDMA_WRITE, 0), "unchecked");
      assertNotEquals(true, s.same(), "unchecked, the damaged bytes landed silently");
      f.provider.faults().clearFrameFaults("soft0");
      assertEquals(WcStatus.SUCCESS.code(), s.run(WrOpcode.RDMA_WRITE, WrFlags.INTEGRITY));
      assertEquals(true, s.same(), "sound again once the fault is cleared");
    }
  }

  @Test
  void aWriteDamagedInTheTargetAfterTheCopyFailsIntegrity() {
    Setup s = new Setup(128 << 10);
    try (Fabric f = s.f) {
      f.provider.faults().corruptLanded("soft1", 1.0, 2);
      assertEquals(WcStatus.INTEGRITY_ERR.code(), s.run(WrOpcode.RDMA_WRITE, WrFlags.INTEGRITY));
      assertEquals(WcStatus.SUCCESS.code(), s.run(WrOpcode.RDMA_WRITE, 0));
      assertNotEquals(true, s.same());
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void aReadDamagedOnTheWireOrAfterTheCopyFailsIntegrity(boolean onTheWire) {
    Setup s = new Setup(256 << 10);
    try (Fabric f = s.f) {
      // READ: the target (device 1) sends the response, the initiator (device 0) lands it
      s.dst.put(s.src.duplicate().clear()).clear();
      s.src.clear();
      for (int i = 0; i < s.src.capacity(); i++) {
        s.src.put(i, (byte) 0);
      }
      if (onTheWire) {
        f.provider.faults().corruptFrames("soft1", 1.0, 3);
      } else {
        f.provider.faults().corruptLanded("soft0", 1.0, 3);
      }
      assertEquals(WcStatus.INTEGRITY_ERR.code(), s.run(WrOpcode.RDMA_READ, WrFlags.INTEGRITY));
      assertEquals(QpState.RTS, s.a.state());
      assertEquals(WcStatus.SUCCESS.code(), s.run(WrOpcode.RDMA_READ, 0));
      assertNotEquals(true, s.same(), "unchecked, the damaged bytes landed silently");
      f.provider.faults().clearFrameFaults(onTheWire ? "soft1" : "soft0");
      assertEquals(WcStatus.SUCCESS.code(), s.run(WrOpcode.RDMA_READ, WrFlags.INTEGRITY));
      assertEquals(true, s.same());
    }
  }
}
