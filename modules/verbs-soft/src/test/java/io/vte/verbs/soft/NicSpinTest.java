package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WcStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.management.JMException;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;

/**
 * With a spin window, the NIC thread that served a peer's small request busy-polls for it, and the
 * one that only received its acknowledgement, or served only large requests, does not; once the
 * window has passed both sleep. Read from the time the threads were runnable (on a core or waiting
 * for one), which a polling thread that yields fills whatever the load, where its CPU time would be
 * only its share of a busy machine.
 */
class NicSpinTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final long MS = 1_000_000;

  /** How long a polling thread must have been runnable before a test judges the others. */
  private static final long POLLED = 500 * MS;

  @Test
  void theNicThatServedAWriteSpinsAndTheOneThatGotItsAckSleeps() {
    // two tokens: either NIC thread could poll, so only the rule decides which does
    try (Fabric f =
        new Fabric(
            2, new SoftVerbsConfig().setNicSpin(Duration.ofSeconds(1)).setNicSpinThreads(2))) {
      Runnable write = oneWrite(f, 4096);
      write.run(); // connects
      RunnableTime requester = new RunnableTime("soft0");
      RunnableTime responder = new RunnableTime("soft1");
      KeepServing keep = new KeepServing(write);
      Await.until(
          "the responder's NIC thread polls for " + POLLED / MS + " ms",
          WAIT,
          () -> keep.windowOpen() && responder.grown() >= POLLED);
      assertSlept(
          requester.grown(),
          responder.wall(),
          "the requester's NIC thread received only ACKs and slept");
      Await.until(
          "the responder's NIC thread sleeps again after its window", WAIT, responder::stopped);
    }
  }

  @Test
  void aNicThatServedOnlyLargeRequestsSleeps() {
    int large = 64 * 1024; // over the 16 KiB after which a NIC thread polls
    try (Fabric f =
        new Fabric(
            2, new SoftVerbsConfig().setNicSpin(Duration.ofSeconds(1)).setNicSpinThreads(2))) {
      Runnable write = oneWrite(f, large);
      write.run(); // connects
      RunnableTime responder = new RunnableTime("soft1");
      KeepServing keep = new KeepServing(write);
      Await.until(
          "a second of 64 KiB WRITEs, one every quarter second",
          WAIT,
          () -> keep.windowOpen() && responder.wall() >= 1000 * MS);
      assertSlept(
          responder.grown(),
          responder.wall(),
          "the responder's NIC thread served only 64 KiB WRITEs and slept");
    }
  }

  @Test
  void beyondTheProvidersSpinThreadsTheOtherNicsSleep() {
    // device 0 writes to devices 1 and 2; one token: one of the two responders polls, not both
    try (Fabric f =
        new Fabric(
            3, new SoftVerbsConfig().setNicSpin(Duration.ofSeconds(1)).setNicSpinThreads(1))) {
      CompletionQueue cq = f.ctx(0).createCq(32);
      MemoryRegion src = f.localMr(4096);
      Fabric.QpPair[] pairs = new Fabric.QpPair[2];
      MemoryRegion[] dst = new MemoryRegion[2];
      for (int d = 0; d < 2; d++) {
        pairs[d] = f.pairTo(d + 1, cq, 16, Fabric.LOADED);
        dst[d] =
            f.pd(d + 1).registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.ALL_REMOTE);
      }
      Runnable writeToBoth =
          () -> {
            for (int d = 0; d < 2; d++) {
              assertEquals(
                  PostStatus.OK, pairs[d].a().postSend(Fabric.writes(1, src, dst[d], 4096)));
            }
            Fabric.await(cq, 2, WAIT);
          };
      writeToBoth.run(); // connects
      RunnableTime[] responders = {new RunnableTime("soft1"), new RunnableTime("soft2")};
      KeepServing keep = new KeepServing(writeToBoth);
      Await.until(
          "one responder's NIC thread polls for " + POLLED / MS + " ms",
          WAIT,
          () ->
              keep.windowOpen()
                  && Math.max(responders[0].grown(), responders[1].grown()) >= POLLED);
      assertSlept(
          Math.min(responders[0].grown(), responders[1].grown()),
          responders[0].wall(),
          "the other had no token and slept");
    }
  }

  /** A thread that sleeps was runnable for under a fifth of the wall time. */
  private static void assertSlept(long runnable, long wall, String what) {
    assertTrue(
        runnable < wall / 5,
        what + ", but was runnable " + runnable / MS + " of " + wall / MS + " ms");
  }

  /**
   * @return a WRITE of {@code bytes} from device 0 to device 1 of {@code f} on one QP, posted and
   *     awaited (successful) at each run
   */
  private static Runnable oneWrite(Fabric f, int bytes) {
    CompletionQueue cq = f.ctx(0).createCq(16);
    Fabric.QpPair pair = f.pair(cq, 16, Fabric.LOADED);
    MemoryRegion src = f.localMr(bytes);
    MemoryRegion dst = f.remoteMr(bytes);
    return () -> {
      assertEquals(PostStatus.OK, pair.a().postSend(Fabric.writes(1, src, dst, bytes)));
      List<Fabric.Wc> wc = Fabric.await(cq, 1, WAIT);
      assertEquals(WcStatus.SUCCESS.code(), wc.get(0).status());
    };
  }

  /**
   * Serves one more write every quarter second, so a spin window (1 s) stays open while the test
   * waits, however slowly a loaded machine lets the test thread run. A NIC thread without a token
   * wakes only for these few writes.
   */
  private static final class KeepServing {
    private final Runnable serve;
    private long last = System.nanoTime();

    KeepServing(Runnable serve) {
      this.serve = serve;
    }

    /**
     * @return true (it leads a condition), after serving a write if the last is a quarter second
     *     old
     */
    boolean windowOpen() {
      long now = System.nanoTime();
      if (now - last >= 250 * MS) {
        serve.run();
        last = System.nanoTime();
      }
      return true;
    }
  }

  /**
   * The time a soft NIC thread has been runnable since this was made, from Linux's {@code
   * /proc/self/task/<tid>/schedstat} (time on a core plus time waiting in the run queue).
   */
  private static final class RunnableTime {
    private final Path schedstat;
    private final long since = System.nanoTime();
    private final long runnableThen;
    private long lastCheck = since;
    private long lastRunnable;

    RunnableTime(String device) {
      this.schedstat =
          Path.of("/proc/self/task/" + nativeId("vte-soft-nic-" + device), "schedstat");
      this.runnableThen = runnable();
      this.lastRunnable = runnableThen;
    }

    /**
     * @return nanoseconds the thread was runnable since this was made
     */
    long grown() {
      return runnable() - runnableThen;
    }

    /**
     * @return nanoseconds of wall time since this was made
     */
    long wall() {
      return System.nanoTime() - since;
    }

    /**
     * @return whether the thread was runnable less than a tenth of the last 100 ms or more
     */
    boolean stopped() {
      long now = System.nanoTime();
      if (now - lastCheck < 100 * MS) {
        return false;
      }
      long r = runnable();
      boolean quiet = r - lastRunnable < (now - lastCheck) / 10;
      lastCheck = now;
      lastRunnable = r;
      return quiet;
    }

    private long runnable() {
      try {
        String[] fields = Files.readString(schedstat).trim().split(" ");
        return Long.parseLong(fields[0]) + Long.parseLong(fields[1]);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The kernel's id of a thread of this JVM, as the JVM's own thread dump names it (nid). */
  private static int nativeId(String threadName) {
    String dump;
    try {
      dump =
          (String)
              ManagementFactory.getPlatformMBeanServer()
                  .invoke(
                      new ObjectName("com.sun.management:type=DiagnosticCommand"),
                      "threadPrint",
                      new Object[] {new String[0]},
                      new String[] {String[].class.getName()});
    } catch (JMException e) {
      throw new AssertionError("no thread dump", e);
    }
    String head = '"' + threadName + '"';
    for (String line : dump.split("\n")) {
      int nid = line.indexOf(" nid=0x");
      if (line.startsWith(head) && nid > 0) {
        int end = line.indexOf(' ', nid + 7);
        return Integer.parseInt(line.substring(nid + 7, end), 16);
      }
    }
    throw new AssertionError("no thread " + threadName + " in\n" + dump);
  }
}
