package io.vte.cli.scale;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a scale run costs etcd: the keys under the run's cluster prefix and the watch events a
 * watcher of that prefix receives (one watcher, as each engine's store runs one). Without etcd
 * ({@code p2p}) both read -1.
 */
final class EtcdCounter implements AutoCloseable {

  private final Client client;
  private final Watch.Watcher watcher;
  private final ByteSequence prefix;
  private final AtomicLong events = new AtomicLong();

  private EtcdCounter(String uri, String prefix) {
    if ("p2p".equals(uri)) {
      client = null;
      watcher = null;
      this.prefix = null;
      return;
    }
    String endpoints = uri.replaceFirst("^etcd://", "http://").replace(",", ",http://");
    client = Client.builder().endpoints(endpoints.split(",")).build();
    this.prefix = ByteSequence.from(prefix, StandardCharsets.UTF_8);
    watcher =
        client
            .getWatchClient()
            .watch(
                this.prefix,
                WatchOption.builder().isPrefix(true).build(),
                r -> events.addAndGet(r.getEvents().size()));
  }

  /**
   * @param uri the engines' metadata URI ({@code p2p} or {@code etcd://host:port[,...]})
   * @param prefix the run's cluster prefix
   * @return a counter (inert for p2p)
   */
  static EtcdCounter open(String uri, String prefix) {
    return new EtcdCounter(uri, prefix);
  }

  /**
   * @return keys under the prefix now, or -1 without etcd
   * @throws Exception when etcd does not answer within 10 s
   */
  long keys() throws Exception {
    if (client == null) {
      return -1;
    }
    return client
        .getKVClient()
        .get(prefix, GetOption.builder().isPrefix(true).withCountOnly(true).build())
        .get(10, TimeUnit.SECONDS)
        .getCount();
  }

  /**
   * @return watch events received so far, or -1 without etcd
   */
  long events() {
    return client == null ? -1 : events.get();
  }

  @Override
  public void close() {
    if (client != null) {
      watcher.close();
      client.close();
    }
  }
}
