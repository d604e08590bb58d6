package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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
    OwnerProxy proxy = new OwnerProxy(NicPath.of("127.0.0.1:1", "d0"));
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
    List<Object> taken = new ArrayList<>();
    Object item;
    while ((item = proxy.poll()) != null) {
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
    assertNull(proxy.poll(), "nothing is left queued");
  }
}
