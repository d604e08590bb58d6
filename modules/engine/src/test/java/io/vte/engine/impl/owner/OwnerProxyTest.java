package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vte.engine.impl.owner.runtime.SliceQueue;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The proxy's two queues: what the owner's own thread offers skips the concurrent queue, what other
 * threads offered first is taken first, each in its order, and a closed proxy ends everything it
 * holds, whoever offered it.
 */
class OwnerProxyTest {

  private final Map<Slice, Integer> ended = new ConcurrentHashMap<>();
  private final SliceCallback callback =
      new SliceCallback() {
        @Override
        public void onSliceDone(Slice slice, int status, Throwable cause) {
          ended.merge(slice, status, (a, b) -> -1); // -1: ended twice
        }

        @Override
        public boolean isAbandoned() {
          return false;
        }
      };

  private Slice slice(int index) {
    return new Slice(callback, index, WrOpcode.RDMA_WRITE, 0, 0, 1);
  }

  private static OwnerProxy boundHere() {
    OwnerProxy proxy = new OwnerProxy(NicPath.of("127.0.0.1:1", "d0"), SliceQueue.MIN_CAPACITY);
    proxy.bind(() -> {});
    return proxy;
  }

  private static void offerFromAnotherThread(OwnerProxy proxy, List<Slice> slices)
      throws InterruptedException {
    Thread t = new Thread(() -> slices.forEach(proxy::offer), "other");
    t.start();
    t.join(10_000);
  }

  @Test
  void whatOtherThreadsOfferedIsTakenFirstThenTheOwnersOwnEachInOrder() throws Exception {
    OwnerProxy proxy = boundHere();
    List<Slice> own = List.of(slice(0), slice(1), slice(2));
    List<Slice> other = List.of(slice(10), slice(11));
    proxy.offer(own.get(0));
    proxy.offer(own.get(1));
    offerFromAnotherThread(proxy, other);
    proxy.offer(own.get(2));
    List<Slice> taken = new ArrayList<>();
    Slice item;
    while ((item = proxy.pollSlice()) != null) {
      taken.add(item);
    }
    assertEquals(List.of(other.get(0), other.get(1), own.get(0), own.get(1), own.get(2)), taken);
  }

  @Test
  void aClosedProxyEndsWhatItHoldsAndWhatComesLaterEngineClosed() throws Exception {
    OwnerProxy proxy = boundHere();
    List<Slice> own = List.of(slice(0), slice(1));
    List<Slice> other = List.of(slice(10));
    proxy.offer(own.get(0));
    offerFromAnotherThread(proxy, other);
    proxy.close();
    proxy.offer(own.get(1));
    List<Slice> late = List.of(slice(11));
    offerFromAnotherThread(proxy, late);
    for (Slice s : List.of(own.get(0), own.get(1), other.get(0), late.get(0))) {
      assertEquals(SliceStatus.ENGINE_CLOSED, ended.get(s), "slice " + s.index());
    }
    assertEquals(4, ended.size());
    assertNull(proxy.pollSlice(), "nothing is left queued");
  }

  @Test
  void aFullRingNeitherBlocksTheProducersEventLoopNorLosesASlice() throws Exception {
    OwnerProxy proxy = new OwnerProxy(NicPath.of("127.0.0.1:1", "d0"), 4);
    proxy.bind(() -> {});
    Vertx vertx = Vertx.vertx();
    try {
      List<Slice> sent = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        sent.add(slice(i));
      }
      CompletableFuture<Void> offered = new CompletableFuture<>();
      vertx.runOnContext(
          v -> {
            sent.forEach(proxy::submit);
            offered.complete(null); // returned with the ring full: the event loop did not wait
          });
      offered.get(10, TimeUnit.SECONDS);
      assertTrue(proxy.deferredSlices() >= 16, "16 did not fit: " + proxy.deferredSlices());
      Set<Slice> taken = new HashSet<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (taken.size() < sent.size() && System.nanoTime() < deadline) {
        Slice s = proxy.pollSlice();
        if (s != null) {
          assertTrue(taken.add(s), "taken once: " + s.index());
        } else {
          Thread.yield();
        }
      }
      assertEquals(Set.copyOf(sent), taken, "every slice reaches the owner");
      assertTrue(ended.isEmpty(), "none ended on the way");
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aThreadOutsideVertxWaitsForRoomAndThenQueues() throws Exception {
    OwnerProxy proxy = new OwnerProxy(NicPath.of("127.0.0.1:1", "d0"), 4);
    proxy.bind(() -> {});
    List<Slice> sent = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      sent.add(slice(i));
    }
    Thread producer = new Thread(() -> sent.forEach(proxy::offer), "outside-vertx");
    producer.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    // nothing is taken until the producer found the ring full: it must wait, not drop or spin past
    while (proxy.deferredSlices() == 0 && System.nanoTime() < deadline) {
      Thread.yield();
    }
    assertTrue(proxy.deferredSlices() > 0, "the ring was full at least once");
    assertTrue(producer.isAlive(), "the producer waits for room");
    List<Slice> taken = new ArrayList<>();
    while (taken.size() < sent.size() && System.nanoTime() < deadline) {
      Slice s = proxy.pollSlice();
      if (s != null) {
        taken.add(s);
      } else {
        Thread.yield();
      }
    }
    producer.join(10_000);
    assertEquals(sent, taken, "in order, each once");
  }
}
