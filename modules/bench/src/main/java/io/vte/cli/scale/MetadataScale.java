package io.vte.cli.scale;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.MetadataOptions;
import io.vte.cli.common.Blocking;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.metadata.MetadataStore;
import io.vte.metadata.MetadataStores;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Metadata at scale: one store publishes {@code segments} descriptors into etcd while {@code
 * watchers} watchers of the prefix (as many engines would hold) receive the changes; then a fresh
 * store looks up random segments by name, as {@code openSegment} does on a cold cache.
 */
final class MetadataScale {

  private static final Duration DEADLINE = Duration.ofSeconds(300);

  /** Publishes at most this many descriptors at once. */
  private static final int IN_FLIGHT = 64;

  private MetadataScale() {}

  /**
   * Runs it.
   *
   * @param uri {@code etcd://host:port}
   * @param segments descriptors to publish
   * @param watchers watchers of the prefix
   * @param lookups random lookups by a fresh store
   * @return one markdown table
   * @throws Exception when etcd does not answer in time
   */
  static String run(String uri, int segments, int watchers, int lookups) throws Exception {
    String prefix = "/vte/meta-" + System.currentTimeMillis();
    Vertx vertx = Vertx.vertx();
    List<EtcdCounter> counters = new ArrayList<>();
    List<MetadataStore> stores = new ArrayList<>();
    try {
      for (int i = 0; i < watchers; i++) {
        counters.add(EtcdCounter.open(uri, prefix));
      }
      MetadataStore publisher = start(vertx, uri, prefix, stores);
      long t0 = System.nanoTime();
      List<Future<Void>> inFlight = new ArrayList<>();
      for (int i = 0; i < segments; i++) {
        inFlight.add(publisher.publish(descriptor(i)));
        if (inFlight.size() == IN_FLIGHT || i == segments - 1) {
          for (Future<Void> f : inFlight) {
            Blocking.await(f, DEADLINE, "publish");
          }
          inFlight.clear();
        }
      }
      double publishSeconds = (System.nanoTime() - t0) / 1e9;
      // each publish writes two keys (the segment and its node): every watcher sees each of them
      long keys = counters.get(0).keys();
      long end = System.nanoTime() + DEADLINE.toNanos();
      while (counters.stream().anyMatch(c -> c.events() < keys) && System.nanoTime() < end) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
      }
      double fanOutSeconds = (System.nanoTime() - t0) / 1e9;
      long minEvents = counters.stream().mapToLong(EtcdCounter::events).min().orElse(0);
      MetadataStore reader = start(vertx, uri, prefix, stores);
      Histogram lookup = new Histogram(1, TimeUnit.MINUTES.toNanos(1), 3);
      SplittableRandom random = new SplittableRandom(17);
      for (int i = 0; i < lookups; i++) {
        String name = "seg-" + random.nextInt(segments);
        long s = System.nanoTime();
        SegmentDescriptor d = Blocking.await(reader.lookup(name), DEADLINE, "lookup " + name);
        lookup.recordValue(Math.min(lookup.getHighestTrackableValue(), System.nanoTime() - s));
        if (!d.getName().equals(name)) {
          throw new IllegalStateException("lookup of " + name + " returned " + d.getName());
        }
      }
      return String.format(
          Locale.ROOT,
          "| segments | etcd keys | publish /s | watchers | events per watcher (min) | all watchers"
              + " current after s | lookup p50 / p99 ms (cold, %d random) |%n"
              + "|---|---|---|---|---|---|---|%n| %d | %d | %.0f | %d | %d | %.2f | %.2f / %.2f |%n",
          lookups,
          segments,
          keys,
          segments / publishSeconds,
          watchers,
          minEvents,
          fanOutSeconds,
          lookup.getValueAtPercentile(50) / 1e6,
          lookup.getValueAtPercentile(99) / 1e6);
    } finally {
      for (MetadataStore s : stores) {
        Blocking.awaitClosed(s.close(), DEADLINE, "store close");
      }
      for (EtcdCounter c : counters) {
        c.close();
      }
      Blocking.awaitClosed(vertx.close(), DEADLINE, "vertx close");
    }
  }

  private static MetadataStore start(
      Vertx vertx, String uri, String prefix, List<MetadataStore> stores) throws Exception {
    MetadataStore store =
        MetadataStores.create(vertx, uri, new MetadataOptions().setClusterPrefix(prefix));
    stores.add(store);
    Blocking.await(store.start(), DEADLINE, "store start");
    return store;
  }

  private static SegmentDescriptor descriptor(int i) {
    byte[] gid = new byte[16];
    gid[10] = (byte) 0xff;
    gid[11] = (byte) 0xff;
    gid[12] = 127;
    gid[15] = 1;
    return SegmentDescriptor.newBuilder()
        .setName("seg-" + i)
        .setServerName("127.0.0.1:" + (10_000 + i % 50_000))
        .setTransport("soft")
        .addDevices(
            DeviceDesc.newBuilder()
                .setName("d0")
                .setGid(ByteString.copyFrom(gid))
                .setLid(20_000)
                .setMtu(4096)
                .setActive(true))
        .setVersion(1)
        .build();
  }
}
