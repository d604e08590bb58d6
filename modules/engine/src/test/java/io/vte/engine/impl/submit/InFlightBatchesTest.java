package io.vte.engine.impl.submit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The intrusive in-flight lists: adds and removes from many threads, removal during a walk. */
class InFlightBatchesTest {

  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close().await();
  }

  private List<BatchTracker> batches(int n) {
    List<BatchTracker> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(new BatchTracker(new CallerContexts(vertx), b -> {}));
    }
    return list;
  }

  @Test
  void addsAndRemovesFromManyThreadsLeaveExactlyWhatWasNotRemoved() throws Exception {
    InFlightBatches set = new InFlightBatches();
    int threads = 8;
    int each = 2000;
    CyclicBarrier start = new CyclicBarrier(threads);
    List<List<BatchTracker>> kept = Collections.synchronizedList(new ArrayList<>());
    List<Thread> ts = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<BatchTracker> mine = batches(each);
      Thread th =
          new Thread(
              () -> {
                try {
                  start.await(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                for (BatchTracker b : mine) {
                  set.add(b);
                }
                // every other one leaves again, half of them removed twice
                for (int i = 0; i < mine.size(); i += 2) {
                  set.remove(mine.get(i));
                  if (i % 4 == 0) {
                    set.remove(mine.get(i));
                  }
                }
                List<BatchTracker> left = new ArrayList<>();
                for (int i = 1; i < mine.size(); i += 2) {
                  left.add(mine.get(i));
                }
                kept.add(left);
              });
      ts.add(th);
      th.start();
    }
    for (Thread th : ts) {
      th.join(30_000);
    }
    Set<BatchTracker> walked = Collections.newSetFromMap(new IdentityHashMap<>());
    set.forEach(walked::add);
    assertEquals(threads * each / 2, set.size());
    assertEquals(threads * each / 2, walked.size());
    for (List<BatchTracker> left : kept) {
      for (BatchTracker b : left) {
        assertTrue(walked.contains(b), "a batch not removed is walked");
      }
    }
  }

  @Test
  void aWalkMayRemoveTheBatchItIsGiven() {
    InFlightBatches set = new InFlightBatches();
    List<BatchTracker> all = batches(50);
    all.forEach(set::add);
    assertThrows(IllegalStateException.class, () -> set.add(all.get(0)));
    List<BatchTracker> seen = new ArrayList<>();
    set.forEach(
        b -> {
          seen.add(b);
          set.remove(b);
        });
    assertEquals(50, seen.size());
    assertTrue(set.isEmpty());
    assertEquals(0, set.size());
    BatchTracker b = all.get(0);
    set.add(b);
    List<BatchTracker> again = new ArrayList<>();
    set.forEach(again::add);
    assertEquals(List.of(b), again, "a removed batch can be added again");
  }
}
