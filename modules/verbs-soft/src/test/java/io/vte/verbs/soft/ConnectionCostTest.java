package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WcStatus;
import java.io.File;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What an idle connection costs: its direct buffers start small and grow only with the traffic that
 * needs them, and a connection idle for {@code idleConnectionMs} is closed and transparently opened
 * again by the next work request.
 */
class ConnectionCostTest {

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  /** Direct bytes of one connection end before buffers were sized to traffic (8 + 64 + 64 KiB). */
  private static final long OLD_BYTES_PER_END = 136 * 1024;

  private static final int PAIRS = 48;

  @Test
  void aConnectionThatCarriedSmallWritesHoldsAQuarterOfTheOldBuffers() {
    try (Fabric f = new Fabric(2, Map.of("idleConnectionMs", 0))) {
      CompletionQueue cq = f.ctx(0).createCq(PAIRS * 4);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      List<Fabric.QpPair> pairs = new ArrayList<>();
      for (int i = 0; i < PAIRS; i++) {
        pairs.add(f.pair(cq, 4, Fabric.LOADED));
      }
      long before = settledDirectBytes();
      writeOnEach(pairs, cq, src, dst);
      long perPair = (directBytes() - before) / PAIRS;
      System.out.println("direct bytes per connected pair after small writes: " + perPair);
      // each pair is two connection ends in this JVM: the requester's and the responder's
      assertTrue(
          perPair <= 2 * OLD_BYTES_PER_END / 4,
          "direct bytes per connected pair "
              + perPair
              + " > a quarter of the old "
              + 2 * OLD_BYTES_PER_END);
      assertTrue(perPair > 0, "the writes opened no connection: " + perPair);
    }
  }

  @Test
  void anIdleConnectionClosesAndTheNextWriteReopensIt() {
    try (Fabric f = new Fabric(2, Map.of("idleConnectionMs", 300))) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      List<Fabric.QpPair> pairs = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        pairs.add(f.pair(cq, 4, Fabric.LOADED));
      }
      int idle = sockets();
      writeOnEach(pairs, cq, src, dst);
      assertTrue(sockets() >= idle + 16, "8 pairs opened 16 socket ends: " + sockets());
      Await.until("idle connections closed", DEADLINE, () -> sockets() <= idle);
      for (int round = 0; round < 3; round++) {
        DirectMemory.wrap(src.address(), 8).putLong(0, 0x5eed0000L + round);
        writeOnEach(pairs, cq, src, dst);
        assertEquals(0x5eed0000L + round, DirectMemory.wrap(dst.address(), 8).getLong(0));
        Await.until("idle connections closed again", DEADLINE, () -> sockets() <= idle);
      }
    }
  }

  @Test
  void aBusyConnectionIsNotClosed() {
    try (Fabric f = new Fabric(2, Map.of("idleConnectionMs", 200))) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      List<Fabric.QpPair> pairs = List.of(f.pair(cq, 4, Fabric.LOADED));
      int idle = sockets();
      writeOnEach(pairs, cq, src, dst);
      int open = sockets();
      assertTrue(open >= idle + 2, "a write opened a connection: " + open);
      // writes every 20 ms for 1 s, five idle times: the connection stays the same one
      long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
      while (System.nanoTime() < end) {
        writeOnEach(pairs, cq, src, dst);
        assertEquals(open, sockets(), "the busy connection was closed or replaced");
        java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
      }
    }
  }

  private static void writeOnEach(
      List<Fabric.QpPair> pairs, CompletionQueue cq, MemoryRegion src, MemoryRegion dst) {
    for (Fabric.QpPair p : pairs) {
      assertEquals(PostStatus.OK, p.a().postSend(Fabric.writes(1, src, dst, 8)));
    }
    for (Fabric.Wc wc : Fabric.await(cq, pairs.size(), DEADLINE)) {
      assertEquals(WcStatus.SUCCESS.code(), wc.status(), wc.toString());
    }
  }

  /** Socket descriptors of this JVM. */
  private static int sockets() {
    File[] fds = new File("/proc/self/fd").listFiles();
    int n = 0;
    for (File fd : fds == null ? new File[0] : fds) {
      try {
        if (Files.readSymbolicLink(Path.of(fd.getPath())).toString().startsWith("socket:")) {
          n++;
        }
      } catch (IOException e) {
        // closed while listed
      }
    }
    return n;
  }

  private static long directBytes() {
    for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
      if (pool.getName().equals("direct")) {
        return pool.getMemoryUsed();
      }
    }
    throw new AssertionError("no direct buffer pool");
  }

  /** The direct pool after a GC, once garbage buffers are freed (unchanged for 200 ms). */
  private static long settledDirectBytes() {
    System.gc();
    long[] last = {-1};
    long[] since = {System.nanoTime()};
    Await.until(
        "the direct buffer pool settles after a GC",
        DEADLINE,
        () -> {
          long now = directBytes();
          if (now != last[0]) {
            last[0] = now;
            since[0] = System.nanoTime();
            return false;
          }
          return System.nanoTime() - since[0] > 200_000_000L;
        });
    return last[0];
  }
}
