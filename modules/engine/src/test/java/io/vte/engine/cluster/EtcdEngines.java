package io.vte.engine.cluster;

import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.engine.impl.EngineFixture;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.testkit.Await;
import io.vte.testkit.EtcdServer;
import java.time.Duration;
import java.util.List;

/**
 * In-process engines registered in one etcd under logical names, each on its own Vert.x instance.
 */
final class EtcdEngines implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(30);

  private final EtcdServer etcd;
  private final String prefix;
  private final EngineFixture engines = new EngineFixture();

  EtcdEngines(EtcdServer etcd, String prefix) {
    this.etcd = etcd;
    this.prefix = prefix;
  }

  /**
   * Options of an engine publishing as {@code name}: 3 s lease, 200 ms health checks, 3 s etcd
   * calls.
   */
  EngineOptions options(String name) {
    return new EngineOptions()
        .setDevices(List.of(name + "-d0@127.0.0.1"))
        .setWorkersPerContext(1)
        .setRpcHost("127.0.0.1")
        .setMetadataUri(etcd.uri())
        .setSegmentName(name)
        .setMetadata(
            new MetadataOptions()
                .setClusterPrefix(prefix)
                .setLeaseTtl(Duration.ofMillis(3000))
                .setHealthCheckInterval(Duration.ofMillis(200))
                .setCallDeadline(Duration.ofMillis(3000)));
  }

  /** Starts an engine on a new Vert.x instance. */
  TransferEngineImpl start(String name) {
    return start(Vertx.vertx(), options(name));
  }

  /** Starts an engine on {@code vertx} (closed with the others). */
  TransferEngineImpl start(Vertx vertx, EngineOptions options) {
    return engines.start(vertx, options);
  }

  /** Registers {@code length} fresh bytes filled with the sequence of {@code seed}. */
  RegisteredBuffer register(TransferEngine engine, int length, long seed) {
    long address = engines.allocate(length);
    ClusterMemory.fill(address, length, seed);
    return Await.result(engine.register(address, length, "cpu:0"), WAIT);
  }

  @Override
  public void close() {
    engines.close();
  }
}
