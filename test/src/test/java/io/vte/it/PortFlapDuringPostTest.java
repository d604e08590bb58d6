package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsProviders;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import io.vte.verbs.soft.SoftVerbsProvider;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Regression test (fixed in soft verbs by ac61b5f: the NIC closes connections under their handler's
 * lock) of the hang that ended the 30-minute mixed soak: after 349,134 clean transfers, closing the
 * engine never returned, its main thread spinning in {@code SoftMr.close()} on a source region
 * whose in-use count stayed above zero with every NIC thread idle. The race: a port going down
 * closes every connection of the device on its NIC thread ({@code Nic.closeAllConnections ->
 * Connection.close -> resetGather}) without the connection handler's lock, while a posting thread
 * is inside {@code Requester.postFast -> pumpTx -> writeGather} between acquiring the gathered
 * source regions and releasing them; the release loop then finds the gather slots cleared and the
 * acquires are never released.
 *
 * <p>Here: WRITEs of 256 KiB posted from this thread (the fast path) on a soft RC QP pair while
 * another thread takes the sender's port down and up every 2 ms, in 2 s rounds on fresh QP pairs
 * for 20 s ({@code -Dvte.it.flapPostSeconds=N}); then the source region must close within 10 s.
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class PortFlapDuringPostTest {

  private static final int CHUNK = 256 << 10;
  private static final int WINDOW = 8;
  private static final Duration RUN =
      Duration.ofSeconds(Long.getLong("vte.it.flapPostSeconds", 20));

  private SoftVerbsProvider provider;
  private VerbsContext a;
  private VerbsContext b;
  private ProtectionDomain pdA;
  private ProtectionDomain pdB;
  private CompletionQueue cq;
  private CompletionQueue cqB;
  private QueuePair qp;
  private QueuePair qpB;
  private long completed;
  private long errors;

  @Test
  void sourceRegionClosesAfterPortFlapsDuringFastPathPosts() throws Exception {
    provider =
        (SoftVerbsProvider)
            VerbsProviders.create(
                "soft",
                new JsonObject().put("devices", JsonArray.of("fpA@127.0.0.72", "fpB@127.0.0.73")));
    long local = DirectMemory.allocate((long) WINDOW * CHUNK);
    long remote = DirectMemory.allocate((long) WINDOW * CHUNK);
    boolean closed = false;
    try {
      a = provider.open("fpA");
      b = provider.open("fpB");
      pdA = a.allocPd();
      pdB = b.allocPd();
      Pattern.fill(local, WINDOW * CHUNK, 3);
      MemoryRegion source =
          pdA.registerMemory(local, (long) WINDOW * CHUNK, AccessFlags.LOCAL_WRITE);
      MemoryRegion target =
          pdB.registerMemory(
              remote, (long) WINDOW * CHUNK, AccessFlags.ALL_REMOTE | AccessFlags.LOCAL_WRITE);
      int rounds = 0;
      for (long end = System.nanoTime() + RUN.toNanos(); System.nanoTime() < end; rounds++) {
        round(source, target);
      }
      assertTrue(completed > 0, "writes completed between the flaps");
      CountDownLatch sourceClosed = new CountDownLatch(1);
      Thread closer =
          new Thread(
              () -> {
                source.close();
                sourceClosed.countDown();
              },
              "mr-closer");
      closer.setDaemon(true);
      closer.start();
      closed = sourceClosed.await(10, TimeUnit.SECONDS);
      ReliabilityReport.record(
          new ScenarioFigures(
              "soft verbs: MR close after port flaps under posts",
              completed,
              0,
              Double.NaN,
              Double.NaN,
              Double.NaN,
              String.format(
                  "%d writes ok, %d failed or flushed, %d rounds; " + "source MR closed: %s",
                  completed, errors, rounds, closed)));
      assertTrue(
          closed, "the source region closes once nothing accesses it (no leaked in-use count)");
      target.close();
    } finally {
      if (closed) { // otherwise closing the device would spin on the leaked region too
        provider.close();
        DirectMemory.free(local);
        DirectMemory.free(remote);
      }
    }
  }

  /**
   * One QP pair for two seconds: WRITEs posted from this thread (so through the requester's fast
   * path) while another thread takes the sender's port down and up every 2 ms; then every write
   * ends (completed or flushed) and the pair closes.
   */
  private void round(MemoryRegion source, MemoryRegion target) throws Exception {
    connectPair();
    AtomicBoolean flapping = new AtomicBoolean(true);
    Thread flapper =
        new Thread(
            () -> {
              while (flapping.get()) {
                provider.faults().portDown("fpA", 1);
                provider.faults().portUp("fpA", 1);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
              }
            },
            "port-flapper");
    flapper.start();
    WorkRequestBatch wr = WorkRequestBatch.allocate(1);
    WorkCompletionBatch wc = WorkCompletionBatch.allocate(WINDOW);
    int[] outstanding = {0};
    try {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      for (long i = 0; System.nanoTime() < end; ) {
        outstanding[0] -= reap(wc);
        while (outstanding[0] < WINDOW) {
          wr.clear();
          long off = (i++ % WINDOW) * CHUNK;
          wr.add(
              i,
              WrOpcode.RDMA_WRITE,
              WrFlags.SIGNALED,
              source.address() + off,
              CHUNK,
              source.lkey(),
              target.address() + off,
              target.rkey());
          if (qp.postSend(wr) != PostStatus.OK) {
            break; // the QP went to ERR: its flushes end the round
          }
          outstanding[0]++;
        }
      }
    } finally {
      flapping.set(false);
      flapper.join(10_000);
    }
    Await.until(
        "every write of the round ends",
        Duration.ofSeconds(30),
        () -> {
          outstanding[0] -= reap(wc);
          return outstanding[0] == 0;
        });
    qp.close();
    qpB.close();
    cq.close();
    cqB.close();
  }

  private int reap(WorkCompletionBatch wc) {
    int n = cq.poll(wc);
    for (int k = 0; k < n; k++) {
      if (wc.status(k) == WcStatus.SUCCESS.code()) {
        completed++;
      } else {
        errors++;
      }
    }
    return Math.max(0, n);
  }

  private void connectPair() {
    cq = a.createCq(64);
    cqB = b.createCq(64);
    qp = pdA.createQp(new QpInitAttributes(cq, cq, WINDOW * 2, 1, 0));
    qpB = pdB.createQp(new QpInitAttributes(cqB, cqB, WINDOW * 2, 1, 0));
    RcPair.connect(qp, a, qpB, b);
  }
}
