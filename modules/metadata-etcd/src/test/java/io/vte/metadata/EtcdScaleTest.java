package io.vte.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.vertx.core.Future;
import io.vte.api.MetadataOptions;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.EtcdServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Metadata at cluster scale: many segments in one etcd, published by several nodes and watched by
 * many. Checks that every watcher is told of every segment exactly once and that every lookup
 * answers the descriptor that was published, and prints what it costs: publish rate, watch fan-out
 * delay (publish start to a watcher's invalidation), lookup latency uncached (a node that just
 * started, as {@code openSegment} of a new peer does) and cached (a watcher), and etcd's key count.
 * The default suite runs 500 segments and 8 watchers; {@code -Psoak} runs 10,000 and 32 instead.
 */
@ExtendWith(BlockedThreadGuard.class)
class EtcdScaleTest {

  private static final Duration WAIT = Duration.ofSeconds(120);
  private static final int PUBLISHERS = 10;
  private static final int IN_FLIGHT = 64;

  @RegisterExtension static final EtcdStores stores = EtcdStores.onOwnEtcd();

  @Test
  void fiveHundredSegmentsEightWatchers() throws Exception {
    run(500, 8);
  }

  @Tag("soak")
  @Test
  void tenThousandSegmentsThirtyTwoWatchers() throws Exception {
    run(10_000, 32);
  }

  private void run(int segments, int watchers) throws Exception {
    MetadataOptions options =
        new MetadataOptions()
            .setClusterPrefix("/vte/scale")
            .setLeaseTtl(Duration.ofSeconds(30))
            .setCallDeadline(Duration.ofSeconds(20));
    List<MetadataStore> watching = new ArrayList<>();
    List<WatcherLog> logs = new ArrayList<>();
    ConcurrentHashMap<String, Long> publishedAt = new ConcurrentHashMap<>();
    for (int w = 0; w < watchers; w++) {
      MetadataStore store = stores.started(options);
      WatcherLog log = new WatcherLog(segments, publishedAt);
      store.setInvalidationHandler(log::seen);
      watching.add(store);
      logs.add(log);
    }
    List<MetadataStore> publishers = new ArrayList<>();
    for (int p = 0; p < PUBLISHERS; p++) {
      publishers.add(stores.started(options));
    }

    long start = System.nanoTime();
    for (int first = 0; first < segments; first += IN_FLIGHT) {
      List<Future<Void>> window = new ArrayList<>();
      for (int i = first; i < Math.min(segments, first + IN_FLIGHT); i++) {
        String name = name(i);
        publishedAt.put(name, System.nanoTime());
        window.add(publishers.get(i % PUBLISHERS).publish(descriptor(i)));
      }
      Await.result(Future.all(window), WAIT);
    }
    double publishSeconds = (System.nanoTime() - start) / 1e9;
    for (WatcherLog log : logs) {
      Await.until("every watcher told of every segment", WAIT, () -> log.count() >= segments);
    }
    double fanOutSeconds = (System.nanoTime() - start) / 1e9;

    long keys = segmentKeys(stores.etcd(), options.getClusterPrefix());
    assertEquals(segments, keys, "segment keys in etcd");

    MetadataStore fresh = stores.started(options);
    long[] uncached = lookUpAll(fresh, segments);
    long[] cached = lookUpAll(watching.get(0), segments);

    long[] delays = new long[segments * watchers];
    for (int w = 0; w < watchers; w++) {
      WatcherLog log = logs.get(w);
      assertEquals(segments, log.count(), "watcher " + w + " told of a segment twice");
      assertEquals(0, log.unknown(), "watcher " + w + " told of a segment never published");
      System.arraycopy(log.delays(), 0, delays, w * segments, segments);
    }
    Arrays.sort(delays);
    System.out.printf(
        Locale.ROOT,
        "[metadata scale] %d segments by %d publishers, %d watchers: publish %.0f/s; all watchers"
            + " told after %.2f s (%d watch events); fan-out delay p50 %.1f ms p99 %.1f ms;"
            + " lookup uncached p50 %.2f ms p99 %.2f ms max %.2f ms; cached p50 %.3f ms p99 %.3f"
            + " ms; etcd segment keys %d%n",
        segments,
        PUBLISHERS,
        watchers,
        segments / publishSeconds,
        fanOutSeconds,
        (long) segments * watchers,
        ms(percentile(delays, 0.50)),
        ms(percentile(delays, 0.99)),
        ms(percentile(uncached, 0.50)),
        ms(percentile(uncached, 0.99)),
        ms(uncached[uncached.length - 1]),
        ms(percentile(cached, 0.50)),
        ms(percentile(cached, 0.99)),
        keys);
  }

  /**
   * Looks every segment up, one at a time, each answer checked against what was published.
   *
   * @return each lookup's latency in nanoseconds, sorted
   */
  private static long[] lookUpAll(MetadataStore store, int segments) {
    long[] latencies = new long[segments];
    for (int i = 0; i < segments; i++) {
      long t0 = System.nanoTime();
      SegmentDescriptor found = Await.result(store.lookup(name(i)), WAIT);
      latencies[i] = System.nanoTime() - t0;
      assertEquals(descriptor(i), found, "lookup of " + name(i));
    }
    Arrays.sort(latencies);
    return latencies;
  }

  private static long segmentKeys(EtcdServer etcd, String prefix) throws Exception {
    try (Client raw = Client.builder().endpoints(etcd.endpoint()).build()) {
      return raw.getKVClient()
          .get(
              ByteSequence.from(prefix + "/segments/", StandardCharsets.UTF_8),
              GetOption.builder().isPrefix(true).withCountOnly(true).build())
          .get(20, TimeUnit.SECONDS)
          .getCount();
    }
  }

  private static String name(int i) {
    return "seg-" + i;
  }

  private static SegmentDescriptor descriptor(int i) {
    return Descriptors.sample(name(i), "10.0." + (i / 250) + "." + (i % 250) + ":7000", 1, 4);
  }

  private static long percentile(long[] sorted, double p) {
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  /** What one watcher was told: how many segment names, with each one's delay since publish. */
  private static final class WatcherLog {
    private final long[] delays;
    private final ConcurrentHashMap<String, Long> publishedAt;
    private final AtomicLong count = new AtomicLong();
    private final LongAdder unknown = new LongAdder();

    WatcherLog(int segments, ConcurrentHashMap<String, Long> publishedAt) {
      this.delays = new long[segments];
      this.publishedAt = publishedAt;
    }

    /** Called on the store's context, one thread at a time. */
    void seen(String name) {
      Long at = publishedAt.get(name);
      if (at == null) {
        unknown.increment();
        return;
      }
      long n = count.getAndIncrement();
      if (n < delays.length) {
        delays[(int) n] = System.nanoTime() - at;
      }
    }

    long count() {
      return count.get();
    }

    long unknown() {
      return unknown.sum();
    }

    long[] delays() {
      assertTrue(count.get() <= delays.length, "more events than segments: " + count.get());
      return delays;
    }
  }
}
