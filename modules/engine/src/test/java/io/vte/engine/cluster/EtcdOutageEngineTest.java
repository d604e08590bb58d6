package io.vte.engine.cluster;

import static io.vte.engine.cluster.EtcdEngines.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.EngineFixture;
import io.vte.engine.impl.EngineInternals;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * etcd stops and restarts while two in-process engines transfer continuously: no transfer fails,
 * the {@code vte.metadata.degraded} gauge goes 1 then 0, and afterwards the lease and the watch
 * work again (a buffer registered after the restart reaches the peer, the node's key is under a
 * live lease).
 */
@ExtendWith(BlockedThreadGuard.class)
class EtcdOutageEngineTest {

  private static final String PREFIX = "/vte/outage";
  private static final int CHUNK = 256 * 1024;
  private static final int LENGTH = 8 * CHUNK;

  private EtcdServer etcd;
  private EtcdEngines engines;
  private Thread traffic;
  private final AtomicBoolean running = new AtomicBoolean(true);

  @BeforeEach
  void start() {
    etcd = EtcdServer.start();
    engines = new EtcdEngines(etcd, PREFIX);
  }

  @AfterEach
  void stop() throws InterruptedException {
    running.set(false);
    if (traffic != null) {
      traffic.join(WAIT.toMillis());
    }
    engines.close();
    etcd.close();
  }

  @Test
  void transfersBetweenLivePeersSurviveAnEtcdRestartAndTheStoreRecovers() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Vertx metered = EngineFixture.meteredVertx(registry);
    EngineOptions outageA = engines.options("outage-a");
    outageA.getMetadata().setCallDeadline(Duration.ofMillis(1000));
    TransferEngineImpl a = engines.start(metered, outageA);
    TransferEngineImpl b = engines.start("outage-b");
    RegisteredBuffer local = engines.register(a, LENGTH, 1);
    RegisteredBuffer remote = engines.register(b, LENGTH, 2);
    Await.until(
        "b's buffer is published",
        WAIT,
        () -> Await.result(a.openSegment("outage-b"), WAIT).buffers().size() == 1);
    SegmentHandle peer = Await.result(a.openSegment("outage-b"), WAIT);
    Gauge degraded =
        registry
            .find("vte.metadata.degraded")
            .tag("engine", a.diagnostics().metricsLabel())
            .gauge();
    // a lease refresh slower than the 1 s call deadline (a loaded machine) degrades the store until
    // the next probe
    Await.untilEquals("healthy at start", WAIT, 0.0, degraded::value);

    AtomicLong done = new AtomicLong();
    Queue<String> failures = new ConcurrentLinkedQueue<>();
    traffic =
        new Thread(
            () -> {
              for (long i = 0; running.get(); i++) {
                int offset = (int) (i % (LENGTH / CHUNK)) * CHUNK;
                TransferRequest r =
                    i % 2 == 0
                        ? TransferRequest.write(
                            local, offset, peer, remote.address() + offset, CHUNK)
                        : TransferRequest.read(
                            local, offset, peer, remote.address() + offset, CHUNK);
                try {
                  BatchResult result =
                      Await.result(a.submit(List.of(r), new TransferOptions()).result(), WAIT);
                  if (!result.allCompleted()) {
                    failures.add(i + ": " + result);
                  }
                } catch (RuntimeException | AssertionError e) {
                  failures.add(i + ": " + e);
                }
                done.incrementAndGet();
              }
            },
            "outage-traffic");
    traffic.start();
    Await.until("traffic flows", WAIT, () -> done.get() >= 20);

    etcd.stop();
    Await.until("a reports the degraded state", WAIT, () -> degraded.value() == 1.0);
    long atDegraded = done.get();
    Await.until("transfers go on while etcd is down", WAIT, () -> done.get() >= atDegraded + 50);
    Await.until("b is degraded too", WAIT, () -> EngineInternals.metadataDegraded(b));
    long asked = System.nanoTime();
    Throwable uncached = Await.failure(a.openSegment("never-seen"), WAIT);
    assertTrue(
        uncached instanceof VteException v && v.code() == ErrorCode.METADATA_UNAVAILABLE,
        "an uncached segment fails fast and typed while etcd is away: " + uncached);
    assertTrue(
        System.nanoTime() - asked < Duration.ofSeconds(5).toNanos(), "no hang on a metadata call");

    long atRestart = done.get();
    etcd.restart();
    Await.until("a recovers", WAIT, () -> degraded.value() == 0.0);
    Await.until("b recovers", WAIT, () -> !EngineInternals.metadataDegraded(b));
    FunctionCounter degradations =
        registry
            .find("vte.metadata.degradations")
            .tag("engine", a.diagnostics().metricsLabel())
            .functionCounter();
    assertTrue(degradations.count() >= 1, "the degradation was counted: " + degradations.count());

    RegisteredBuffer later = engines.register(b, CHUNK, 3);
    Await.until(
        "the recovered watch brings b's new buffer to a",
        WAIT,
        () -> Await.result(a.openSegment("outage-b"), WAIT).buffers().size() == 2);
    BatchResult read =
        Await.result(
            a.submit(
                    List.of(TransferRequest.read(local, 0, peer, later.address(), CHUNK)),
                    new TransferOptions())
                .result(),
            WAIT);
    assertTrue(read.allCompleted(), read.toString());
    assertEquals(ClusterMemory.expectedCrc(3, 0, CHUNK), ClusterMemory.crc(local.address(), CHUNK));
    for (String name : List.of("outage-a", "outage-b")) {
      String lease = leaseOf(PREFIX + "/segments/" + name);
      String ttl = etcd.etcdctl("lease", "timetolive", lease);
      assertFalse(
          ttl.contains("expired") || ttl.contains("not found"), name + "'s lease is alive: " + ttl);
    }

    running.set(false);
    Await.until("traffic stops", WAIT, () -> !traffic.isAlive());
    System.out.println(
        "FIGURE etcd outage: "
            + done.get()
            + " transfers in all, "
            + (atRestart - atDegraded)
            + " between the degraded report and the restart, "
            + failures.size()
            + " failed");
    assertTrue(failures.isEmpty(), "no transfer failed: " + failures);
  }

  /**
   * @return the hex id of the lease {@code key} is attached to
   */
  private String leaseOf(String key) {
    JsonObject json = new JsonObject(etcd.etcdctl("get", key, "-w", "json"));
    assertEquals(1, json.getJsonArray("kvs").size(), key + " exists: " + json);
    return Long.toHexString(json.getJsonArray("kvs").getJsonObject(0).getLong("lease"));
  }
}
