package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.engine.impl.owner.runtime.SliceQueue;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The owner's slice ring: bounded, FIFO, every slice taken exactly once under many producers. */
class SliceQueueTest {

  private static final SliceCallback NONE =
      new SliceCallback() {
        @Override
        public void onSliceDone(Slice slice, int status, Throwable cause) {}

        @Override
        public boolean isAbandoned() {
          return false;
        }
      };

  private static Slice slice(int index) {
    return new Slice(NONE, index, WrOpcode.RDMA_WRITE, 0, 0, 1);
  }

  @Test
  void aFullRingRefusesTheSliceAndTakesItOnceACellIsFree() {
    SliceQueue ring = new SliceQueue(4);
    List<Slice> in = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      in.add(slice(i));
      assertTrue(ring.offer(in.get(i)));
    }
    Slice late = slice(4);
    assertFalse(ring.offer(late), "full: refused, the caller keeps it");
    assertSame(in.get(0), ring.poll());
    assertTrue(ring.offer(late), "a freed cell takes it");
    for (int i = 1; i < 4; i++) {
      assertSame(in.get(i), ring.poll());
    }
    assertSame(late, ring.poll());
    assertNull(ring.poll());
  }

  @Test
  void capacityFollowsTheCreditsAsAPowerOfTwo() {
    assertEquals(SliceQueue.MIN_CAPACITY, SliceQueue.capacityFor(16));
    assertEquals(8192, SliceQueue.capacityFor(2048));
    assertEquals(8192, SliceQueue.capacityFor(1500));
    assertThrows(IllegalArgumentException.class, () -> new SliceQueue(6));
  }

  @Test
  void manyProducersThroughASmallRingLoseAndRepeatNothingAndKeepEachOnesOrder() throws Exception {
    int producers = 3;
    int perProducer = 20_000;
    SliceQueue ring = new SliceQueue(16);
    CyclicBarrier start = new CyclicBarrier(producers + 1);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      int base = p * perProducer;
      Thread t =
          new Thread(
              () -> {
                try {
                  start.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                for (int i = 0; i < perProducer; i++) {
                  Slice s = slice(base + i);
                  while (!ring.offer(s)) {
                    Thread.yield(); // full: give the consumer the core (the machine may have few)
                  }
                }
              },
              "producer-" + p);
      t.start();
      threads.add(t);
    }
    start.await(10, TimeUnit.SECONDS);
    int[] next = new int[producers];
    int taken = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (taken < producers * perProducer) {
      Slice s = ring.poll();
      if (s == null) {
        assertTrue(System.nanoTime() < deadline, "taken only " + taken);
        Thread.yield();
        continue;
      }
      int p = s.index() / perProducer;
      assertEquals(p * perProducer + next[p], s.index(), "producer " + p + " in order, once");
      next[p]++;
      taken++;
    }
    for (Thread t : threads) {
      t.join(10_000);
    }
    assertNull(ring.poll(), "nothing extra");
  }
}
