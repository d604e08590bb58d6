package io.vte.metadata.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.vertx.core.Context;
import io.vte.api.VteException;
import io.vte.metadata.impl.DescriptorCache;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The watch of an {@link EtcdMetadataStore} on its segments prefix: each event updates the lookup
 * cache and invalidates the segment. A failed watch is marked {@link #lost()} and the store's probe
 * re-creates it from the last revision seen; when etcd compacted that history away the cache is
 * dropped (every cached segment invalidated) and the watch starts from now. jetcd's callbacks hop
 * to the store's context: everything here runs there.
 */
final class SegmentWatch {

  private static final System.Logger LOG = System.getLogger(EtcdMetadataStore.class.getName());

  private final Context context;
  private final String prefix;
  private final ByteSequence prefixKey;
  private final DescriptorCache cache;
  private final Consumer<String> invalidate;
  private final BooleanSupplier running;
  private final Runnable onLost;

  private Watch.Watcher watcher;
  private int generation;
  private boolean lost;
  private List<Runnable> held;
  private long lastRevision;

  /**
   * @param context the store's context
   * @param prefix the segments prefix ({@code <cluster prefix>/segments/})
   * @param cache the store's lookup cache
   * @param invalidate tells the store's invalidation handler of a changed segment
   * @param running true while the store runs (a failure after it stopped is ignored)
   * @param onLost called when the watch failed, to probe etcd at once
   */
  SegmentWatch(
      Context context,
      String prefix,
      DescriptorCache cache,
      Consumer<String> invalidate,
      BooleanSupplier running,
      Runnable onLost) {
    this.context = context;
    this.prefix = prefix;
    this.prefixKey = ByteSequence.from(prefix, StandardCharsets.UTF_8);
    this.cache = cache;
    this.invalidate = invalidate;
    this.running = running;
    this.onLost = onLost;
  }

  /**
   * Starts watching after {@code revision}, the revision of the store's first read.
   *
   * @param client the store's jetcd client
   * @param revision the last revision the store has seen
   */
  void start(Client client, long revision) {
    lastRevision = revision;
    watchFrom(client, revision + 1);
  }

  /**
   * Re-creates a lost watch from the revision after the last one seen.
   *
   * @param client the store's jetcd client
   */
  void restart(Client client) {
    watchFrom(client, lastRevision + 1);
  }

  /**
   * @return true when the watch failed and is not yet re-created
   */
  boolean lost() {
    return lost;
  }

  /**
   * @return the revision the watch goes on from
   */
  long nextRevision() {
    return lastRevision + 1;
  }

  /** Stops the watch; events still on their way are dropped. */
  void stop() {
    generation++;
    if (watcher != null) {
      watcher.close();
      watcher = null;
    }
  }

  /**
   * Holds back the events while {@code hold} is true (the cache then goes stale as a slow watch
   * would leave it) and delivers the held events in order when released.
   *
   * @param hold true to hold events, false to deliver the held ones and stop holding
   */
  void hold(boolean hold) {
    if (hold) {
      if (held == null) {
        held = new ArrayList<>();
      }
    } else if (held != null) {
      List<Runnable> events = held;
      held = null;
      events.forEach(Runnable::run);
    }
  }

  private void watchFrom(Client client, long fromRevision) {
    int current = ++generation;
    lost = false;
    WatchOption option = WatchOption.builder().isPrefix(true).withRevision(fromRevision).build();
    watcher =
        client
            .getWatchClient()
            .watch(
                prefixKey,
                option,
                Watch.listener(
                    response -> context.runOnContext(v -> onEvents(current, response)),
                    failure -> context.runOnContext(v -> failed(current, failure)),
                    () ->
                        context.runOnContext(
                            v -> failed(current, new IllegalStateException("watch completed")))));
  }

  private void onEvents(int from, WatchResponse response) {
    if (from != generation) {
      return;
    }
    if (held != null) {
      held.add(() -> onEvents(from, response));
      return;
    }
    for (WatchEvent event : response.getEvents()) {
      KeyValue kv = event.getKeyValue();
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      String name = key.substring(prefix.length());
      long revision = kv.getModRevision();
      lastRevision = Math.max(lastRevision, revision);
      if (event.getEventType() == WatchEvent.EventType.PUT) {
        try {
          cache.put(name, DescriptorCodec.decode(key, name, kv.getValue().getBytes()), revision);
        } catch (VteException bad) {
          cache.remove(name, revision);
          LOG.log(System.Logger.Level.WARNING, bad.getMessage());
        }
      } else {
        cache.remove(name, revision);
      }
      invalidate.accept(name);
    }
  }

  private void failed(int from, Throwable failure) {
    if (from != generation || !running.getAsBoolean()) {
      return;
    }
    stop();
    Throwable cause =
        failure.getCause() instanceof CompactedException ? failure.getCause() : failure;
    if (cause instanceof CompactedException) {
      // History needed to catch up is gone: forget everything, tell everyone, watch from now.
      LOG.log(
          System.Logger.Level.WARNING,
          "etcd watch on {0} compacted past revision {1}; dropping the cache",
          prefix,
          lastRevision + 1);
      lastRevision =
          Math.max(lastRevision, ((CompactedException) cause).getCompactedRevision() - 1);
      List<String> names = new ArrayList<>(cache.names());
      cache.clear();
      names.forEach(invalidate);
    } else {
      LOG.log(
          System.Logger.Level.WARNING,
          "etcd watch on {0} failed ({1}); re-created when etcd answers",
          prefix,
          failure.getMessage());
    }
    lost = true;
    onLost.run();
  }
}
