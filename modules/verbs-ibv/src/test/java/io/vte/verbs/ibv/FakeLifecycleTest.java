package io.vte.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.ResourceSnapshot;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every create matched by a destroy, in order, with no thread or fd left; close racing the hot
 * path.
 */
@Tag("fake")
class FakeLifecycleTest {

  @BeforeEach
  void reset() {
    FakeIbverbs.reset();
  }

  private static int firstIndex(List<String> log, String prefix) {
    for (int i = 0; i < log.size(); i++) {
      if (log.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndex(List<String> log, String prefix) {
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void closingTheProviderDestroysEverythingInOrderAndLeavesNoThreadOrFd() {
    ResourceSnapshot before = ResourceSnapshot.take();
    long memory = DirectMemory.allocate(1 << 16);
    try {
      for (int cycle = 0; cycle < 15; cycle++) {
        FakeRig rig = new FakeRig();
        for (int i = 0; i < 3; i++) {
          rig.pd.registerMemory(memory + i * 4096L, 4096, AccessFlags.ALL_REMOTE);
        }
        CompletionQueue second = rig.context.createCq(16);
        for (int i = 0; i < 3; i++) {
          rig.pd.createQp(new QpInitAttributes(rig.cq, second, 4, 4, 0));
        }
        rig.context.allocPd();
        FakeIbverbs.clearLog();
        rig.close();
        rig.close();
        FakeIbverbs.assertNothingLive();
        List<String> log = List.of(FakeIbverbs.log().split("\n"));
        assertEquals(4, log.stream().filter(l -> l.startsWith("ibv_destroy_qp")).count());
        assertEquals(3, log.stream().filter(l -> l.startsWith("ibv_dereg_mr")).count());
        assertEquals(2, log.stream().filter(l -> l.startsWith("ibv_dealloc_pd")).count());
        assertEquals(2, log.stream().filter(l -> l.startsWith("ibv_destroy_cq")).count());
        assertTrue(
            lastIndex(log, "ibv_destroy_qp") < firstIndex(log, "ibv_dereg_mr"), "QPs before MRs");
        assertTrue(
            lastIndex(log, "ibv_dealloc_pd") < firstIndex(log, "ibv_destroy_cq"), "PDs before CQs");
        assertTrue(lastIndex(log, "ibv_destroy_cq") < firstIndex(log, "ibv_destroy_comp_channel"));
        assertTrue(
            firstIndex(log, "ibv_destroy_comp_channel") < firstIndex(log, "ibv_close_device"));
        assertEquals(log.size() - 1, firstIndex(log, "ibv_close_device"), "the device closes last");
        VerbsException closed =
            org.junit.jupiter.api.Assertions.assertThrows(
                VerbsException.class, rig.context::allocPd);
        assertEquals(VerbsError.CLOSED, closed.error());
      }
    } finally {
      DirectMemory.free(memory);
    }
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(10));
  }

  @Test
  void closingAQpWhileAnotherThreadPostsNeverCrashesAndEndsInClosed() throws Exception {
    FakeIbverbs.recordOnly(true); // posts forever: nothing may fill the receive queue
    try (FakeRig rig = new FakeRig()) {
      for (int round = 0; round < 100; round++) {
        QueuePair qp = rig.pd.createQp(new QpInitAttributes(rig.cq, rig.cq, 4, 4, 0));
        qp.toInit(1, AccessFlags.LOCAL_WRITE);
        CyclicBarrier start = new CyclicBarrier(2);
        AtomicInteger lastStatus = new AtomicInteger(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread poster =
            new Thread(
                () -> {
                  WorkRequestBatch batch = WorkRequestBatch.allocate(2);
                  batch.add(1, WrOpcode.RECV, WrFlags.NONE, 0x1000, 8, 1, 0, 0);
                  batch.add(2, WrOpcode.RECV, WrFlags.NONE, 0x1000, 8, 1, 0, 0);
                  try {
                    start.await();
                    int s;
                    while ((s = qp.postRecv(batch)) == PostStatus.OK) {
                      FakeIbverbs.clearLog();
                    }
                    lastStatus.set(s);
                  } catch (Throwable t) {
                    failure.set(t);
                  }
                });
        poster.start();
        start.await();
        qp.close();
        poster.join();
        assertEquals(null, failure.get());
        assertEquals(PostStatus.CLOSED, lastStatus.get());
      }
      assertEquals(1, FakeIbverbs.count("qp"), "only the rig's own QP is left");
    }
    FakeIbverbs.assertNothingLive();
  }

  @Test
  void closingACqWhileAnotherThreadPollsNeverCrashesAndEndsInClosed() throws Exception {
    try (FakeRig rig = new FakeRig()) {
      for (int round = 0; round < 100; round++) {
        CompletionQueue cq = rig.context.createCq(4);
        CyclicBarrier start = new CyclicBarrier(2);
        AtomicInteger lastStatus = new AtomicInteger(1);
        Thread poller =
            new Thread(
                () -> {
                  WorkCompletionBatch out = WorkCompletionBatch.allocate(4);
                  try {
                    start.await();
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                  int s;
                  while ((s = cq.poll(out)) >= 0) {
                    Thread.onSpinWait();
                  }
                  lastStatus.set(s);
                });
        poller.start();
        start.await();
        cq.close();
        poller.join();
        assertEquals(PostStatus.CLOSED, lastStatus.get());
      }
    }
    FakeIbverbs.assertNothingLive();
  }

  @Test
  void aCqStillUsedByAQpRefusesToCloseAndStaysUsable() {
    try (FakeRig rig = new FakeRig()) {
      FakeIbverbs.clearLog();
      VerbsException busy =
          org.junit.jupiter.api.Assertions.assertThrows(VerbsException.class, rig.cq::close);
      assertEquals(VerbsError.BUSY, busy.error());
      assertTrue(busy.getMessage().contains("still used by 1 QP(s)"), busy.getMessage());
      assertEquals("", FakeIbverbs.log(), "nothing reached the driver");
      assertEquals(0, rig.cq.poll(WorkCompletionBatch.allocate(1)));
      rig.qp.close();
      rig.cq.close();
      assertEquals(0, FakeIbverbs.count("cq"));
    }
    FakeIbverbs.assertNothingLive();
  }
}
