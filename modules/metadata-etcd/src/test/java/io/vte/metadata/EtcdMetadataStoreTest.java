package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.etcd.EtcdMetadataStore;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import io.vte.testkit.ResourceSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The etcd store against a real etcd: round trips, watches, bad content, close. One etcd for the
 * class.
 */
@ExtendWith(BlockedThreadGuard.class)
class EtcdMetadataStoreTest {

  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final AtomicInteger PREFIXES = new AtomicInteger();

  @RegisterExtension static final EtcdStores stores = EtcdStores.onClassEtcd(EtcdServer::start);
  private final MetadataOptions options =
      new MetadataOptions()
          .setClusterPrefix("/vte/test" + PREFIXES.incrementAndGet())
          .setLeaseTtl(Duration.ofSeconds(3))
          .setCallDeadline(Duration.ofSeconds(5));

  /** Writes a key directly with jetcd, as someone other than a VTE node would. */
  private static void putRaw(Client raw, String key, String value) {
    try {
      raw.getKVClient()
          .put(
              ByteSequence.from(key, StandardCharsets.UTF_8),
              ByteSequence.from(value, StandardCharsets.UTF_8))
          .get(10, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Waits for {@code f} and tells whether it failed with {@code code}. */
  static boolean failsWith(io.vertx.core.Future<?> f, ErrorCode code) {
    try {
      Await.result(f, WAIT);
      return false;
    } catch (VteException e) {
      return e.code() == code;
    }
  }

  /** Waits for {@code f} and tells whether it succeeded. */
  static boolean succeeds(io.vertx.core.Future<?> f) {
    try {
      Await.result(f, WAIT);
      return true;
    } catch (VteException e) {
      return false;
    }
  }

  @Test
  void publishedDescriptorIsFoundByAnotherStoreAndReadableWithEtcdctl() {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    SegmentDescriptor d =
        EtcdStores.publishAndLookUp(a, b, Descriptors.sample("kv-cache-0", "127.0.0.1:7001", 1, 3));
    assertEquals(d, a.local("kv-cache-0").orElseThrow());
    String json =
        stores
            .etcd()
            .etcdctl(
                "get", options.getClusterPrefix() + "/segments/kv-cache-0", "--print-value-only");
    assertTrue(json.contains("\"serverName\":\"127.0.0.1:7001\""), json);
    String node =
        stores
            .etcd()
            .etcdctl(
                "get", options.getClusterPrefix() + "/nodes/127.0.0.1:7001", "--print-value-only");
    assertEquals("127.0.0.1:7001", node.trim());
  }

  @Test
  void aFreshLookupReadsEtcdPastAHeldWatchAndTheHeldEventsDoNotBringBackTheOldDescriptor() {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    SegmentDescriptor v1 =
        EtcdStores.publishAndLookUp(b, a, Descriptors.sample("grows", "127.0.0.1:7011", 1, 1));
    EtcdMetadataStore held = (EtcdMetadataStore) a;
    Await.result(held.holdWatchEvents(true), WAIT);
    SegmentDescriptor v2 = Descriptors.sample("grows", "127.0.0.1:7011", 2, 2);
    Await.result(b.publish(v2), WAIT);
    assertEquals(v1, Await.result(a.lookup("grows"), WAIT), "the held watch leaves it stale");
    assertEquals(v2, Await.result(a.lookupFresh("grows"), WAIT), "read from etcd");
    assertEquals(v2, Await.result(a.lookup("grows"), WAIT), "the fresh read updated the cache");
    Await.result(held.holdWatchEvents(false), WAIT);
    assertEquals(v2, Await.result(a.lookup("grows"), WAIT), "the held events were older");
    assertTrue(failsWith(a.lookupFresh("absent"), ErrorCode.SEGMENT_NOT_FOUND));
    assertTrue(failsWith(a.lookupFresh("bad\nname"), ErrorCode.INVALID_ARGUMENT));
    Await.result(a.close(), WAIT);
    assertTrue(failsWith(a.lookupFresh("grows"), ErrorCode.ENGINE_CLOSED));
  }

  @Test
  void closedStoreRefusesWorkEvenForCachedSegmentsAndBadNamesAreInvalidArguments() {
    MetadataStore a = stores.started(options);
    Await.result(a.publish(Descriptors.sample("mine", "127.0.0.1:7008", 1, 1)), WAIT);
    Await.result(a.lookup("mine"), WAIT);
    assertTrue(failsWith(a.lookup(""), ErrorCode.INVALID_ARGUMENT));
    assertTrue(failsWith(a.lookup("bad\nname"), ErrorCode.INVALID_ARGUMENT));
    assertTrue(
        failsWith(
            a.publish(io.vte.handshake.proto.SegmentDescriptor.newBuilder().setName("x").build()),
            ErrorCode.INVALID_ARGUMENT));
    assertTrue(failsWith(a.start(), ErrorCode.INVALID_ARGUMENT), "started twice");

    Await.result(a.close(), WAIT);

    assertTrue(failsWith(a.lookup("mine"), ErrorCode.ENGINE_CLOSED));
    assertTrue(
        failsWith(
            a.publish(Descriptors.sample("mine", "127.0.0.1:7008", 2, 1)),
            ErrorCode.ENGINE_CLOSED));
    assertTrue(failsWith(a.start(), ErrorCode.ENGINE_CLOSED));
    Await.result(a.close(), WAIT);
  }

  @Test
  void aBurstOfLookupsOfAnUncachedSegmentCostsEtcdOneRead() {
    MetadataStore a = stores.started(options);
    SegmentDescriptor d = Descriptors.sample("popular", "127.0.0.1:7009", 1, 1);
    Await.result(a.publish(d), WAIT);
    // Started after the publish, so its watch has not cached the segment.
    MetadataStore b = stores.started(options);
    double rangesBefore = stores.etcd().metric("etcd_debugging_mvcc_range_total");
    List<io.vertx.core.Future<SegmentDescriptor>> burst = new java.util.ArrayList<>();
    stores
        .vertx()
        .runOnContext(
            v -> {
              for (int i = 0; i < 100; i++) {
                burst.add(b.lookup("popular"));
              }
            });
    Await.until("burst issued", WAIT, () -> burst.size() == 100);
    for (io.vertx.core.Future<SegmentDescriptor> f : List.copyOf(burst)) {
      assertEquals(d, Await.result(f, WAIT));
    }
    double reads = stores.etcd().metric("etcd_debugging_mvcc_range_total") - rangesBefore;
    assertTrue(reads >= 1 && reads <= 3, "etcd served " + reads + " range reads for 100 lookups");
  }

  @Test
  void unknownSegmentFailsWithSegmentNotFound() {
    MetadataStore a = stores.started(options);
    Throwable t = Await.failure(a.lookup("nobody"), WAIT);
    VteException e = assertInstanceOf(VteException.class, t);
    assertEquals(ErrorCode.SEGMENT_NOT_FOUND, e.code());
    assertTrue(e.getMessage().contains("nobody"), e.getMessage());
  }

  @Test
  void watchDeliversANewBufferRegisteredByAnotherStore() {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    List<String> invalidated = EtcdStores.invalidationsOf(b);
    Await.result(a.publish(Descriptors.sample("seg", "127.0.0.1:7002", 1, 1)), WAIT);
    assertEquals(1, Await.result(b.lookup("seg"), WAIT).getBuffersCount());

    SegmentDescriptor grown = Descriptors.sample("seg", "127.0.0.1:7002", 2, 2);
    Await.result(a.publish(grown), WAIT);

    Await.until(
        "b told of both versions",
        WAIT,
        () -> invalidated.stream().filter("seg"::equals).count() == 2);
    // Served from b's cache, which the watch updated: no poll of etcd needed.
    assertEquals(grown, Await.result(b.lookup("seg"), WAIT));
  }

  @Test
  void unpublishRemovesTheSegmentForEveryone() {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    List<String> invalidated = EtcdStores.invalidationsOf(b);
    EtcdStores.publishAndLookUp(a, b, Descriptors.sample("gone", "127.0.0.1:7003", 1, 1));

    Await.result(a.unpublish("gone"), WAIT);

    // b's cached copy goes when the watch delivers the delete; then b asks etcd and finds nothing.
    Await.until(
        "b sees gone deleted",
        WAIT,
        () -> failsWith(b.lookup("gone"), ErrorCode.SEGMENT_NOT_FOUND));
    Await.until(
        "b told of the put and the delete",
        WAIT,
        () -> invalidated.stream().filter("gone"::equals).count() == 2);
    assertTrue(a.local("gone").isEmpty());
  }

  @Test
  void badContentFailsWithProtocolErrorNamingTheKeyAndTheWatchSurvives() {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    List<String> invalidated = EtcdStores.invalidationsOf(b);
    String segments = options.getClusterPrefix() + "/segments/";
    Client raw = Client.builder().endpoints(stores.etcd().endpoint()).build();
    putRaw(raw, segments + "not-json", "this is not json {");
    putRaw(raw, segments + "wrong-types", "{\"name\": {\"x\": 1}, \"version\": \"many\"}");
    putRaw(raw, segments + "missing", "{\"name\": \"missing\"}");
    putRaw(raw, segments + "renamed", "{\"name\": \"other\", \"serverName\": \"127.0.0.1:1\"}");

    for (String name : List.of("not-json", "wrong-types", "missing", "renamed")) {
      VteException e = assertInstanceOf(VteException.class, Await.failure(b.lookup(name), WAIT));
      assertEquals(ErrorCode.PROTOCOL_ERROR, e.code(), e.getMessage());
      assertTrue(e.getMessage().contains(segments + name), e.getMessage());
    }
    Await.until(
        "watch saw the garbage",
        WAIT,
        () -> invalidated.containsAll(List.of("not-json", "missing")));

    SegmentDescriptor good = Descriptors.sample("good", "127.0.0.1:7004", 1, 1);
    Await.result(a.publish(good), WAIT);
    Await.until("watch still delivers after garbage", WAIT, () -> invalidated.contains("good"));
    assertEquals(good, Await.result(b.lookup("good"), WAIT));
    // A valid descriptor replacing garbage is picked up by the watch too.
    putRaw(
        raw,
        segments + "missing",
        new String(
            io.vte.metadata.etcd.DescriptorCodec.encode(
                Descriptors.sample("missing", "127.0.0.1:7005", 1, 1)),
            StandardCharsets.UTF_8));
    Await.until("repaired descriptor served", WAIT, () -> succeeds(b.lookup("missing")));
    raw.close();
    // degraded is the lease probe's verdict, which a slow refresh on a loaded machine may flip for
    // a moment
    Await.until("b not degraded by the garbage", WAIT, () -> !b.isDegraded());
  }

  @Test
  void readersOnManyEventLoopsNeverSeeAVersionGoBackwardsWhileANodeRepublishes() throws Exception {
    MetadataStore writer = stores.started(options);
    MetadataStore reader = stores.started(options);
    int versions = 40;
    int readers = 4;
    Await.result(writer.publish(Descriptors.sample("hot", "127.0.0.1:7007", 1, 1)), WAIT);
    List<List<Long>> seen = new CopyOnWriteArrayList<>();
    java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(readers);
    java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(readers + 1);
    for (int r = 0; r < readers; r++) {
      List<Long> mine = new CopyOnWriteArrayList<>();
      seen.add(mine);
      // Each reader runs on its own event loop and looks up again as soon as an answer arrives.
      stores
          .vertx()
          .deployVerticle(
              new io.vertx.core.AbstractVerticle() {
                @Override
                public void start() {
                  vertx
                      .executeBlocking(() -> go.await(10, java.util.concurrent.TimeUnit.SECONDS))
                      .onSuccess(x -> next());
                }

                private void next() {
                  reader
                      .lookup("hot")
                      .onComplete(
                          ar -> {
                            if (ar.succeeded()) {
                              mine.add(ar.result().getVersion());
                            }
                            if (ar.succeeded() && ar.result().getVersion() == versions) {
                              done.countDown();
                            } else {
                              // Yield between lookups: a cache hit completes at once and must not
                              // spin the loop.
                              vertx.setTimer(1, t -> next());
                            }
                          });
                }
              });
    }
    go.await(10, java.util.concurrent.TimeUnit.SECONDS);
    for (long v = 2; v <= versions; v++) {
      Await.result(
          writer.publish(Descriptors.sample("hot", "127.0.0.1:7007", v, (int) (v % 3) + 1)), WAIT);
    }
    assertTrue(
        done.await(30, java.util.concurrent.TimeUnit.SECONDS),
        "every reader reached the last version");
    for (List<Long> mine : seen) {
      for (int i = 1; i < mine.size(); i++) {
        assertTrue(
            mine.get(i) >= mine.get(i - 1),
            "version went back from " + mine.get(i - 1) + " to " + mine.get(i));
      }
    }
    Await.until("the reader not degraded by the hot key", WAIT, () -> !reader.isDegraded());
  }

  @Test
  void closeRevokesTheLeaseSoEntriesVanishAtOnceAndLeavesNoThreads() {
    // Its own Vert.x, so that the baseline is taken before any event loop, jetcd or gRPC thread
    // exists.
    ResourceSnapshot before = ResourceSnapshot.take();
    Vertx own = Vertx.vertx();
    MetadataStore a = MetadataStores.create(own, stores.etcd().uri(), options);
    MetadataStore b = MetadataStores.create(own, stores.etcd().uri(), options);
    Await.result(a.start(), WAIT);
    Await.result(b.start(), WAIT);
    Await.result(a.publish(Descriptors.sample("closing", "127.0.0.1:7006", 1, 1)), WAIT);
    Await.result(b.lookup("closing"), WAIT);

    Await.result(a.close(), WAIT);

    // Well before the 3 s TTL could expire: the revoke deleted the keys.
    assertEquals(
        "",
        stores.etcd().etcdctl("get", options.getClusterPrefix(), "--prefix", "--keys-only").trim());
    Await.until(
        "b saw the delete",
        WAIT,
        () -> failsWith(b.lookup("closing"), ErrorCode.SEGMENT_NOT_FOUND));
    Await.result(b.close(), WAIT);
    Await.result(own.close(), WAIT);
    ResourceSnapshot.assertNoLeaksSince(before, Duration.ofSeconds(20));
  }
}
