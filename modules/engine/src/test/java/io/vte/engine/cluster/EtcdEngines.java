package io.vte.engine.cluster;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import io.vte.api.RegisteredBuffer;
import io.vte.api.TransferEngine;
import io.vte.engine.impl.TransferEngineImpl;
import io.vte.testkit.Await;
import io.vte.testkit.EtcdServer;
import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** In-process engines registered in one etcd under logical names, each on its own Vert.x instance. */
final class EtcdEngines implements AutoCloseable {

  static final Duration WAIT = Duration.ofSeconds(30);

  private final EtcdServer etcd;
  private final String prefix;
  private final List<Vertx> vertxes = new ArrayList<>();
  private final List<TransferEngineImpl> engines = new ArrayList<>();
  private final List<Long> allocations = new ArrayList<>();

  EtcdEngines(EtcdServer etcd, String prefix) {
    this.etcd = etcd;
    this.prefix = prefix;
  }

  /** Options of an engine publishing as {@code name}: 3 s lease, 200 ms health checks, 3 s etcd calls. */
  EngineOptions options(String name) {
    return new EngineOptions().setDevices(List.of(name + "-d0@127.0.0.1")).setWorkersPerContext(1)
        .setRpcHost("127.0.0.1").setMetadataUri(etcd.uri()).setSegmentName(name)
        .setMetadata(new JsonObject().put("clusterPrefix", prefix).put("leaseTtlMs", 3000)
            .put("healthCheckIntervalMs", 200).put("callDeadlineMs", 3000));
  }

  /** Starts an engine on a new Vert.x instance. */
  TransferEngineImpl start(String name) {
    Vertx vertx = Vertx.vertx();
    vertxes.add(vertx);
    return start(vertx, options(name));
  }

  /** Starts an engine on {@code vertx} (closed with the others). */
  TransferEngineImpl start(Vertx vertx, EngineOptions options) {
    if (!vertxes.contains(vertx)) {
      vertxes.add(vertx);
    }
    TransferEngineImpl engine = (TransferEngineImpl) Await.result(TransferEngine.create(vertx, options), WAIT);
    engines.add(engine);
    return engine;
  }

  /** Registers {@code length} fresh bytes filled with the sequence of {@code seed}. */
  RegisteredBuffer register(TransferEngine engine, int length, long seed) {
    long address = DirectMemory.allocate(length);
    allocations.add(address);
    ClusterMemory.fill(address, length, seed);
    return Await.result(engine.register(address, length, "cpu:0"), WAIT);
  }

  @Override
  public void close() {
    for (TransferEngineImpl e : engines) {
      Await.result(e.close(), WAIT);
    }
    for (Vertx v : vertxes) {
      Await.result(v.close(), WAIT);
    }
    allocations.forEach(DirectMemory::free);
  }
}
