package io.vte.metadata;

import static io.vte.metadata.EtcdMetadataStoreTest.failsWith;
import static io.vte.metadata.EtcdMetadataStoreTest.succeeds;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.MetadataOptions;
import io.vte.api.VteException;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** etcd going away and coming back, and a lease lost behind the store's back. One etcd per test. */
@ExtendWith(BlockedThreadGuard.class)
class EtcdOutageTest {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration TTL = Duration.ofSeconds(3);

  @RegisterExtension final EtcdStores stores = EtcdStores.onOwnEtcd();
  private final MetadataOptions options =
      new MetadataOptions()
          .setClusterPrefix("/vte/outage")
          .setLeaseTtl(TTL)
          .setCallDeadline(Duration.ofSeconds(3))
          .setHealthCheckInterval(Duration.ofMillis(200));

  @Test
  void etcdLostAndBackCachedLookupsKeepWorkingAndLeaseAndWatchRecover() {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    List<String> invalidated = EtcdStores.invalidationsOf(b);
    SegmentDescriptor v1 = Descriptors.sample("a-seg", "127.0.0.1:7101", 1, 1);
    Await.result(a.publish(v1), WAIT);
    Await.result(a.publish(Descriptors.sample("a-old", "127.0.0.1:7101", 1, 1)), WAIT);
    assertEquals(v1, Await.result(b.lookup("a-seg"), WAIT));

    stores.etcd().kill();

    Await.until("both stores degraded", WAIT, () -> a.isDegraded() && b.isDegraded());
    assertTrue(b.degradedCount() >= 1);
    for (int i = 0; i < 50; i++) {
      assertEquals(
          v1, Await.result(b.lookup("a-seg"), WAIT), "cached lookup " + i + " while etcd is down");
    }
    long t0 = System.nanoTime();
    VteException uncached =
        assertInstanceOf(VteException.class, Await.failure(b.lookup("never-seen"), WAIT));
    long failMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertEquals(ErrorCode.METADATA_UNAVAILABLE, uncached.code());
    assertTrue(
        failMs < options.getCallDeadline().toMillis() / 2,
        "uncached lookup took " + failMs + " ms");
    // A registration change while etcd is away is kept and published when it returns.
    SegmentDescriptor v2 = Descriptors.sample("a-seg", "127.0.0.1:7101", 2, 2);
    assertEquals(
        ErrorCode.METADATA_UNAVAILABLE, ((VteException) Await.failure(a.publish(v2), WAIT)).code());
    // So is an unregistration: the segment is deleted from etcd when it returns.
    assertEquals(
        ErrorCode.METADATA_UNAVAILABLE,
        ((VteException) Await.failure(a.unpublish("a-old"), WAIT)).code());

    stores.etcd().restart();

    Await.until("both stores recovered", WAIT, () -> !a.isDegraded() && !b.isDegraded());
    Await.until(
        "b sees v2 re-published by a",
        WAIT,
        () -> Await.result(b.lookup("a-seg"), WAIT).getVersion() == 2);
    Await.until(
        "a-old deleted once etcd is back",
        WAIT,
        () -> failsWith(b.lookup("a-old"), ErrorCode.SEGMENT_NOT_FOUND));
    // A change after the restart reaches b through its (resumed or re-created) watch.
    SegmentDescriptor v3 = Descriptors.sample("a-seg", "127.0.0.1:7101", 3, 3);
    int seen = invalidated.size();
    Await.result(a.publish(v3), WAIT);
    Await.until("b told of v3", WAIT, () -> invalidated.size() > seen);
    assertEquals(v3, Await.result(b.lookup("a-seg"), WAIT));
    assertTrue(
        a.degradedCount() >= 1 && b.degradedCount() >= 1, "degraded counters count the outage");
    // The lease is kept alive again: the entry outlives a full TTL after recovery.
    long recovered = System.nanoTime();
    Await.until(
        "a-seg alive for TTL + 1 s after recovery",
        WAIT,
        () -> {
          if (!stores
              .etcd()
              .etcdctl("get", "/vte/outage/segments/a-seg", "--keys-only")
              .contains("a-seg")) {
            throw new AssertionError("a-seg vanished after recovery: the lease is not kept alive");
          }
          return System.nanoTime() - recovered > TTL.plusSeconds(1).toNanos();
        });
  }

  @Test
  void hungEtcdNeverHangsACallerAndTheStoresRecoverWhenItResumes() {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    SegmentDescriptor d =
        EtcdStores.publishAndLookUp(a, b, Descriptors.sample("a-seg", "127.0.0.1:7104", 1, 1));

    stores.etcd().pause();
    try {
      // Connections stay up but nothing answers: only the call deadline ends the wait.
      long t0 = System.nanoTime();
      VteException e =
          assertInstanceOf(VteException.class, Await.failure(b.lookup("uncached"), WAIT));
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertEquals(ErrorCode.METADATA_UNAVAILABLE, e.code(), e.getMessage());
      assertTrue(
          ms < options.getCallDeadline().toMillis() + 2000, "uncached lookup took " + ms + " ms");
      Await.until("both stores degraded", WAIT, () -> a.isDegraded() && b.isDegraded());
      assertEquals(d, Await.result(b.lookup("a-seg"), WAIT), "cached lookup while etcd hangs");
    } finally {
      stores.etcd().resume();
    }

    Await.until("both stores recovered", WAIT, () -> !a.isDegraded() && !b.isDegraded());
    SegmentDescriptor v2 = Descriptors.sample("a-seg", "127.0.0.1:7104", 2, 2);
    Await.result(a.publish(v2), WAIT);
    Await.until(
        "b sees the change made after the hang",
        WAIT,
        () -> Await.result(b.lookup("a-seg"), WAIT).getVersion() == 2);
  }

  @Test
  void leaseRevokedBehindTheStoresBackIsReGrantedAndDescriptorsRePublished() throws Exception {
    MetadataStore a = stores.started(options);
    MetadataStore b = stores.started(options);
    List<String> invalidated = EtcdStores.invalidationsOf(b);
    SegmentDescriptor d =
        EtcdStores.publishAndLookUp(a, b, Descriptors.sample("a-seg", "127.0.0.1:7102", 1, 1));
    try (Client raw = Client.builder().endpoints(stores.etcd().endpoint()).build()) {
      ByteSequence key = ByteSequence.from("/vte/outage/segments/a-seg", StandardCharsets.UTF_8);
      long lease = raw.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs().get(0).getLease();

      raw.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);

      Await.until(
          "a re-published under a new lease",
          WAIT,
          () -> {
            try {
              List<KeyValue> kvs = raw.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs();
              return !kvs.isEmpty() && kvs.get(0).getLease() != lease && kvs.get(0).getLease() != 0;
            } catch (Exception e) {
              throw new AssertionError(e);
            }
          });
      long newLease =
          raw.getKVClient().get(key).get(10, TimeUnit.SECONDS).getKvs().get(0).getLease();
      assertNotEquals(lease, newLease);
      assertTrue(
          raw.getLeaseClient()
                  .timeToLive(newLease, io.etcd.jetcd.options.LeaseOption.DEFAULT)
                  .get(10, TimeUnit.SECONDS)
                  .getTTL()
              > 0);
    }
    Await.until(
        "b saw the delete and the re-publish",
        WAIT,
        () ->
            invalidated.stream().filter("a-seg"::equals).count() >= 2
                && succeeds(b.lookup("a-seg")));
    assertEquals(d, Await.result(b.lookup("a-seg"), WAIT));
    Await.until("a not degraded after re-granting its lease", WAIT, () -> !a.isDegraded());
  }

  @Test
  void historyCompactedDuringAnOutageDropsTheCacheAndServesTheCurrentDescriptor() throws Exception {
    // Slow probes give the test time to change and compact etcd before b re-creates its watch.
    options.setLeaseTtl(Duration.ofSeconds(30)).setHealthCheckInterval(Duration.ofSeconds(5));
    MetadataStore b = stores.started(options);
    List<String> invalidated = EtcdStores.invalidationsOf(b);
    ByteSequence key = ByteSequence.from("/vte/outage/segments/x", StandardCharsets.UTF_8);
    try (Client raw = Client.builder().endpoints(stores.etcd().endpoint()).build()) {
      raw.getKVClient()
          .put(
              key,
              ByteSequence.from(
                  io.vte.metadata.etcd.DescriptorCodec.encode(
                      Descriptors.sample("x", "127.0.0.1:7103", 1, 1))))
          .get(10, TimeUnit.SECONDS);
    }
    Await.until("b caches x v1", WAIT, () -> succeeds(b.lookup("x")) && invalidated.contains("x"));

    stores.etcd().kill();
    Await.until("b degraded", WAIT, b::isDegraded);
    stores.etcd().restart();
    try (Client raw = Client.builder().endpoints(stores.etcd().endpoint()).build()) {
      raw.getKVClient()
          .put(
              key,
              ByteSequence.from(
                  io.vte.metadata.etcd.DescriptorCodec.encode(
                      Descriptors.sample("x", "127.0.0.1:7103", 2, 2))))
          .get(10, TimeUnit.SECONDS);
      long revision =
          raw.getKVClient()
              .put(
                  ByteSequence.from("/vte/outage/other", StandardCharsets.UTF_8),
                  ByteSequence.from("filler", StandardCharsets.UTF_8))
              .get(10, TimeUnit.SECONDS)
              .getHeader()
              .getRevision();
      raw.getKVClient().compact(revision).get(10, TimeUnit.SECONDS);
    }

    Await.until("b recovered", WAIT, () -> !b.isDegraded());
    Await.until("b serves x v2", WAIT, () -> Await.result(b.lookup("x"), WAIT).getVersion() == 2);
    assertTrue(
        invalidated.stream().filter("x"::equals).count() >= 2,
        "b was told x changed: " + invalidated);
  }

  @Test
  void startFailsAtTheStartDeadlineWhenEtcdIsUnreachable() {
    stores.etcd().kill();
    Duration startDeadline = Duration.ofSeconds(4);
    MetadataStore a =
        stores.create(
            new MetadataOptions(options)
                .setCallDeadline(Duration.ofSeconds(1))
                .setStartDeadline(startDeadline));
    long t0 = System.nanoTime();
    VteException e = assertInstanceOf(VteException.class, Await.failure(a.start(), WAIT));
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertEquals(ErrorCode.METADATA_UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains(stores.etcd().endpoint()), e.getMessage());
    assertTrue(
        e.getMessage().contains("attempts within the start deadline of 4000 ms"), e.getMessage());
    assertTrue(
        ms >= startDeadline.toMillis() - 1,
        "gave up after " + ms + " ms, before the start deadline");
    // the last attempt gets what is left of the start deadline, never a whole call deadline more
    assertTrue(ms < startDeadline.toMillis() + 2000, "start failed after " + ms + " ms");
    assertTrue(failsWith(a.lookup("x"), ErrorCode.ENGINE_CLOSED));
    Await.result(a.close(), WAIT);
    stores.etcd().restart();
  }

  /**
   * etcd frozen (SIGSTOP) at start for longer than three call deadlines, well within the start
   * deadline: the start waits for it instead of failing at its first call deadline, and succeeds
   * once it runs again.
   */
  @Test
  void startWaitsForAPausedEtcdWithinTheStartDeadline() {
    Duration callDeadline = Duration.ofMillis(500);
    MetadataStore a =
        stores.create(
            new MetadataOptions(options)
                .setCallDeadline(callDeadline)
                .setStartDeadline(Duration.ofSeconds(60)));
    stores.etcd().pause();
    long t0 = System.nanoTime();
    Future<Void> started;
    try {
      started = a.start();
      Await.until(
          "three call deadlines passed with etcd paused",
          WAIT,
          () -> System.nanoTime() - t0 > 3 * callDeadline.toNanos());
      assertFalse(started.isComplete(), "start ended while etcd was paused: " + started.cause());
    } finally {
      stores.etcd().resume();
    }
    Await.result(started, WAIT);
    SegmentDescriptor d = Descriptors.sample("after-pause", "127.0.0.1:7104", 1, 1);
    // a put slower than the call deadline leaves it kept and re-published by the next probe
    a.publish(d);
    MetadataStore b = stores.started(options);
    Await.until(
        "b finds the descriptor a published after the pause",
        WAIT,
        () ->
            succeeds(b.lookup("after-pause"))
                && d.equals(Await.result(b.lookup("after-pause"), WAIT)));
  }
}
