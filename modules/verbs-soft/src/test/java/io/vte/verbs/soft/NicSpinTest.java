package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WcStatus;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With a spin window, the NIC thread that served a peer's request busy-polls for it, and the one
 * that only received its acknowledgement does not; once the window has passed both sleep. Read from
 * the threads' CPU time.
 */
class NicSpinTest {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final long MS = 1_000_000;

  @Test
  void theNicThatServedAWriteSpinsAndTheOneThatGotItsAckSleeps() {
    // two tokens: either NIC thread could poll, so only the rule decides which does
    try (Fabric f = new Fabric(2, Map.of("nicSpinMicros", 1_000_000, "nicSpinThreads", 2))) {
      CompletionQueue cq = f.ctx(0).createCq(16);
      Fabric.QpPair pair = f.pair(cq, 16, Fabric.LOADED);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      long requester = nicThread("soft0");
      long responder = nicThread("soft1");
      // the first write connects; the second starts the measured window from a quiet NIC
      for (int i = 0; i < 2; i++) {
        assertEquals(PostStatus.OK, pair.a().postSend(Fabric.writes(1, src, dst, 4096)));
        List<Fabric.Wc> wc = Fabric.await(cq, 1, WAIT);
        assertEquals(WcStatus.SUCCESS.code(), wc.get(0).status());
      }
      long requesterStart = cpu(requester);
      long responderStart = cpu(responder);
      Await.until(
          "the responder's NIC thread spins 100 ms of CPU",
          WAIT,
          () -> cpu(responder) - responderStart >= 100 * MS);
      long requesterSpent = cpu(requester) - requesterStart;
      assertTrue(
          requesterSpent < 20 * MS,
          "the requester's NIC thread received only an ACK and slept, but used "
              + requesterSpent / MS
              + " ms of CPU");
      CpuGrowth growth = new CpuGrowth(responder);
      Await.until(
          "the responder's NIC thread sleeps again after its window", WAIT, growth::stopped);
    }
  }

  @Test
  void beyondTheProvidersSpinThreadsTheOtherNicsSleep() {
    // device 0 writes to devices 1 and 2; one token: one of the two responders polls, not both
    try (Fabric f = new Fabric(3, Map.of("nicSpinMicros", 1_000_000, "nicSpinThreads", 1))) {
      CompletionQueue cq = f.ctx(0).createCq(32);
      MemoryRegion src = f.localMr(4096);
      Fabric.QpPair[] pairs = new Fabric.QpPair[2];
      MemoryRegion[] dst = new MemoryRegion[2];
      for (int d = 0; d < 2; d++) {
        pairs[d] = f.pairTo(d + 1, cq, 16, Fabric.LOADED);
        dst[d] =
            f.pd(d + 1).registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.ALL_REMOTE);
      }
      long[] responders = {nicThread("soft1"), nicThread("soft2")};
      for (int round = 0; round < 2; round++) {
        for (int d = 0; d < 2; d++) {
          assertEquals(PostStatus.OK, pairs[d].a().postSend(Fabric.writes(1, src, dst[d], 4096)));
        }
        Fabric.await(cq, 2, WAIT);
      }
      long[] start = {cpu(responders[0]), cpu(responders[1])};
      Await.until(
          "one responder's NIC thread spins 100 ms of CPU",
          WAIT,
          () ->
              cpu(responders[0]) - start[0] >= 100 * MS
                  || cpu(responders[1]) - start[1] >= 100 * MS);
      long least = Math.min(cpu(responders[0]) - start[0], cpu(responders[1]) - start[1]);
      assertTrue(
          least < 20 * MS, "the other had no token and slept, but used " + least / MS + " ms");
    }
  }

  /** Whether a thread's CPU time grew by less than 2 ms over the last 50 ms or more. */
  private static final class CpuGrowth {
    private final long thread;
    private long since = System.nanoTime();
    private long cpuThen;

    CpuGrowth(long thread) {
      this.thread = thread;
      this.cpuThen = cpu(thread);
    }

    boolean stopped() {
      long now = System.nanoTime();
      if (now - since < 50 * MS) {
        return false;
      }
      long cpuNow = cpu(thread);
      boolean quiet = cpuNow - cpuThen < 2 * MS;
      since = now;
      cpuThen = cpuNow;
      return quiet;
    }
  }

  private static long cpu(long threadId) {
    long t = THREADS.getThreadCpuTime(threadId);
    assertTrue(t >= 0, "CPU time of thread " + threadId + " is measurable");
    return t;
  }

  private static long nicThread(String device) {
    String name = "vte-soft-nic-" + device;
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals(name))
        .mapToLong(Thread::getId)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no thread " + name));
  }
}
