package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.WcStatus;
import io.vte.verbs.soft.impl.SoftDevice;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
    try (Fabric f = new Fabric(2, new SoftVerbsConfig().setIdleConnection(Duration.ofMillis(0)))) {
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
    try (Fabric f =
        new Fabric(2, new SoftVerbsConfig().setIdleConnection(Duration.ofMillis(300)))) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      List<Fabric.QpPair> pairs = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        pairs.add(f.pair(cq, 4, Fabric.LOADED));
      }
      assertEquals(0, connections(f), "no connection before any work");
      writeOnEach(pairs, cq, src, dst);
      assertEquals(16, connections(f), "8 pairs opened 8 connections, two ends each");
      Await.untilEquals("idle connections closed", DEADLINE, 0, () -> connections(f));
      for (int round = 0; round < 3; round++) {
        DirectMemory.wrap(src.address(), 8).putLong(0, 0x5eed0000L + round);
        writeOnEach(pairs, cq, src, dst);
        assertEquals(0x5eed0000L + round, DirectMemory.wrap(dst.address(), 8).getLong(0));
        Await.untilEquals("idle connections closed again", DEADLINE, 0, () -> connections(f));
      }
    }
  }

  @Test
  void aBusyConnectionIsNotClosed() {
    try (Fabric f =
        new Fabric(2, new SoftVerbsConfig().setIdleConnection(Duration.ofMillis(200)))) {
      CompletionQueue cq = f.ctx(0).createCq(64);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      List<Fabric.QpPair> pairs = List.of(f.pair(cq, 4, Fabric.LOADED));
      writeOnEach(pairs, cq, src, dst);
      assertEquals(2, connections(f), "a write opened a connection");
      // writes every 20 ms for 1 s, five idle times: the connection stays the same one
      long end = System.nanoTime() + Duration.ofSeconds(1).toNanos();
      while (System.nanoTime() < end) {
        writeOnEach(pairs, cq, src, dst);
        assertEquals(2, connections(f), "the busy connection was closed");
        java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
      }
    }
  }

  @Test
  void aWriteToADestroyedPeerQpFailsAtOnceWithRemoteAbortNotAtTheAckTimeout() {
    try (Fabric f = new Fabric(2)) {
      CompletionQueue cq = f.ctx(0).createCq(16);
      Fabric.QpPair pair = f.pair(cq, 8, Fabric.LOADED);
      MemoryRegion src = f.localMr(4096);
      MemoryRegion dst = f.remoteMr(4096);
      writeOnEach(List.of(pair), cq, src, dst);
      // the peer's endpoint is evicted: its QP is destroyed while the device lives on, and its NIC
      // closes the QP's connection
      pair.b().close();
      Await.untilEquals("the destroyed QP's connection closed", DEADLINE, 0, () -> connections(f));
      for (int round = 0; round < 2; round++) { // with and without a connection left open
        assertEquals(PostStatus.OK, pair.a().postSend(Fabric.writes(3, src, dst, 64)));
        List<Fabric.Wc> wcs = Fabric.await(cq, 3, DEADLINE);
        if (round == 0) {
          // LOADED would take 3 x 2.1 s to give up with RETRY_EXC_ERR; the peer says the QP is gone
          assertEquals(WcStatus.REM_ABORT_ERR.code(), wcs.get(0).status(), wcs.toString());
        } else {
          assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(0).status(), wcs.toString());
        }
        assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(1).status());
        assertEquals(WcStatus.WR_FLUSH_ERR.code(), wcs.get(2).status());
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

  /** Open connections of both devices (each connected pair that carried work has two). */
  private static int connections(Fabric f) {
    return ((SoftDevice) f.ctx(0)).openConnections() + ((SoftDevice) f.ctx(1)).openConnections();
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
