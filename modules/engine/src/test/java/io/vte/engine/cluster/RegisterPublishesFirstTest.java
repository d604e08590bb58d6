package io.vte.engine.cluster;

import static io.vte.engine.cluster.EtcdEngines.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.RegisteredBuffer;
import io.vte.engine.impl.EngineInternals;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.handshake.proto.BufferDesc;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code register} and {@code unregister} complete only once etcd holds the descriptor with the
 * change, also when many threads register at once: a peer that reads etcd the moment they return
 * finds the buffer (or no longer finds it), and etcd never ends on an older descriptor.
 */
@ExtendWith(BlockedThreadGuard.class)
class RegisterPublishesFirstTest {

  private static final int LENGTH = 64 << 10;
  private static final int THREADS = 8;
  private static final int ROUNDS = 3;

  private EtcdServer etcd;
  private EtcdEngines engines;
  private ExecutorService callers;

  @BeforeEach
  void start() {
    etcd = EtcdServer.start();
    engines = new EtcdEngines(etcd, "/vte/publish-first");
    callers = Executors.newFixedThreadPool(THREADS);
  }

  @AfterEach
  void stop() throws Exception {
    callers.shutdownNow();
    assertTrue(callers.awaitTermination(30, TimeUnit.SECONDS));
    engines.close();
    etcd.close();
  }

  @Test
  void whatRegisterAndUnregisterReturnIsAlreadyInEtcd() throws Exception {
    TransferEngineImpl reader = engines.start("reader");
    TransferEngineImpl store = engines.start("store");
    List<RegisteredBuffer> live = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      long seed = round * THREADS;
      List<RegisteredBuffer> added =
          atOnce(
              THREADS,
              t -> {
                RegisteredBuffer b = engines.register(store, LENGTH, seed + t);
                assertTrue(
                    inEtcd(reader).contains(b.address()),
                    "etcd lists " + b + " when register returns");
                return b;
              });
      live.addAll(added);
      assertEquals(addresses(live), inEtcd(reader), "etcd ends on the newest descriptor");

      List<RegisteredBuffer> gone = List.copyOf(live.subList(0, THREADS / 2));
      atOnce(
          gone.size(),
          t -> {
            RegisteredBuffer b = gone.get(t);
            Await.result(store.unregister(b), WAIT);
            assertFalse(
                inEtcd(reader).contains(b.address()),
                "etcd no longer lists " + b + " when unregister returns");
            return b;
          });
      live.removeAll(gone);
      assertEquals(addresses(live), inEtcd(reader), "etcd ends on the newest descriptor");
    }
  }

  /** A caller's work, given its index. */
  private interface Call {
    RegisteredBuffer run(int thread) throws Exception;
  }

  /** Runs {@code call} on {@code n} threads released together; their results in order. */
  private List<RegisteredBuffer> atOnce(int n, Call call) throws Exception {
    CyclicBarrier go = new CyclicBarrier(n);
    List<Future<RegisteredBuffer>> running = new ArrayList<>();
    for (int t = 0; t < n; t++) {
      int thread = t;
      Callable<RegisteredBuffer> task =
          () -> {
            go.await(30, TimeUnit.SECONDS);
            return call.run(thread);
          };
      running.add(callers.submit(task));
    }
    List<RegisteredBuffer> out = new ArrayList<>();
    for (Future<RegisteredBuffer> f : running) {
      out.add(f.get(60, TimeUnit.SECONDS));
    }
    return out;
  }

  /** The store's buffer addresses as etcd holds them now, read past every cache. */
  private static Set<Long> inEtcd(TransferEngineImpl reader) {
    return Await.result(EngineInternals.metadataStore(reader).lookupFresh("store"), WAIT)
        .getBuffersList()
        .stream()
        .map(BufferDesc::getAddress)
        .collect(Collectors.toSet());
  }

  private static Set<Long> addresses(List<RegisteredBuffer> buffers) {
    return buffers.stream().map(RegisteredBuffer::address).collect(Collectors.toSet());
  }
}
