package io.vte.cli.scale;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.OwnerStats;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.cli.common.Blocking;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.HdrHistogram.Histogram;

/**
 * One scale run: {@code hosts} engines in this JVM, each a "host" with {@code nics} soft devices on
 * its own loopback addresses ({@code 127.0.<host+1>.<nic+1>}), all on one Vert.x; every host opens
 * every other's segment and writes to it once at the same moment (the first-transfer storm), then
 * all hosts write small batches all-to-all for a window; then the traffic stops and the idle
 * connections close. Per-host figures are the JVM's growth over its state before the engines
 * started, divided by the hosts.
 */
final class ScaleRun {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  private final ScaleSettings settings;
  private final int hosts;
  private final boolean storm;
  private StormRow stormRow;
  private Vertx vertx;

  /** Each engine's traffic, replaced with the engines after a storm; their failure causes kept. */
  private final List<HostTraffic> traffic = new ArrayList<>();

  private final java.util.TreeMap<String, String> causes = new java.util.TreeMap<>();

  /**
   * @param settings the knobs
   * @param hosts how many hosts
   * @param storm whether to end with a reconnect storm ({@link #storm()})
   */
  ScaleRun(ScaleSettings settings, int hosts, boolean storm) {
    this.settings = settings;
    this.hosts = hosts;
    this.storm = storm;
  }

  /**
   * @return the first message of each cause of a failed transfer, by error code
   */
  java.util.Map<String, String> failureCauses() {
    java.util.TreeMap<String, String> all = new java.util.TreeMap<>(causes);
    for (HostTraffic t : traffic) {
      t.failureCauses().forEach(all::putIfAbsent);
    }
    return all;
  }

  /** The traffic of {@code engines} with {@code buffers}, keeping the causes seen so far. */
  private void trafficOf(List<TransferEngine> engines, List<RegisteredBuffer> buffers) {
    causes.putAll(failureCauses());
    traffic.clear();
    for (int h = 0; h < hosts; h++) {
      traffic.add(new HostTraffic(vertx, engines.get(h), buffers.get(h), h, hosts, settings));
    }
  }

  /**
   * @return the reconnect storm's figures, or null when the run had none
   */
  StormRow storm() {
    return stormRow;
  }

  /**
   * Runs it.
   *
   * @return the figures
   * @throws Exception when an engine cannot start or a step passes its deadline
   */
  ScaleRow run() throws Exception {
    String prefix = "/vte/scale-" + hosts + "-" + System.currentTimeMillis();
    Vertx vertx = Vertx.vertx();
    this.vertx = vertx;
    List<TransferEngine> engines = new ArrayList<>();
    // the registered memory stays reachable until the engines are closed (a GC would free it)
    List<ByteBuffer> memory = new ArrayList<>();
    try (EtcdCounter etcd = EtcdCounter.open(settings.metadataUri(), prefix)) {
      JvmSnapshot base = JvmSnapshot.take();
      for (int h = 0; h < hosts; h++) {
        engines.add(
            Blocking.await(
                TransferEngine.create(vertx, options(h, prefix, null)), DEADLINE, "engine " + h));
      }
      int size = settings.requestBytes();
      List<RegisteredBuffer> buffers = new ArrayList<>();
      for (TransferEngine e : engines) {
        ByteBuffer b = ByteBuffer.allocateDirect(size * hosts * 2);
        memory.add(b);
        buffers.add(Blocking.await(e.register(b, "cpu:0"), DEADLINE, "register"));
      }
      trafficOf(engines, buffers);
      SegmentHandle[][] segs = new SegmentHandle[hosts][hosts];
      Histogram first = new Histogram(1, TimeUnit.MINUTES.toNanos(2), 3);
      AtomicLong failed = new AtomicLong();
      long stormStart = System.nanoTime();
      firstTransfers(engines, segs, first, failed);
      double stormSeconds = (System.nanoTime() - stormStart) / 1e9;
      long handshakes = 0;
      for (TransferEngine e : engines) {
        handshakes += e.diagnostics().owners().handshakesActive();
      }
      long bytes = steady(segs, failed);
      JvmSnapshot busy = JvmSnapshot.take();
      double endpoints = 0;
      double qps = 0;
      for (TransferEngine e : engines) {
        endpoints += e.diagnostics().owners().endpointsAlive();
        qps += e.diagnostics().devices().stream().mapToInt(d -> d.liveQpNumbers().size()).sum();
      }
      // the connections close after idleConnectionMs; the NIC checks every 100 ms
      LockSupport.parkNanos(settings.idle().toNanos() + TimeUnit.MILLISECONDS.toNanos(1500));
      JvmSnapshot idle = JvmSnapshot.take();
      if (storm) {
        stormRow = restartAll(vertx, engines, buffers, memory, prefix);
      }
      return new ScaleRow(
          hosts,
          settings.nics(),
          endpoints / hosts,
          qps / hosts,
          (busy.sockets() - base.sockets()) / (double) hosts,
          (idle.sockets() - base.sockets()) / (double) hosts,
          (busy.direct() - base.direct()) / (double) hosts,
          (idle.direct() - base.direct()) / (double) hosts,
          (busy.heap() - base.heap()) / (double) hosts,
          (busy.threads() - base.threads()) / (double) hosts,
          first.getValueAtPercentile(50) / 1000.0,
          first.getValueAtPercentile(99) / 1000.0,
          handshakes / stormSeconds,
          etcd.keys(),
          etcd.events(),
          bytes * 1e9 / settings.window().toNanos() / (1 << 20) / hosts,
          failed.get());
    } finally {
      for (TransferEngine e : engines) {
        Blocking.awaitClosed(e.close(), DEADLINE, "engine close");
      }
      Blocking.awaitClosed(vertx.close(), DEADLINE, "vertx close");
      memory.clear();
    }
  }

  /**
   * @param ports the ports of the engine this one replaces (its devices' then its RPC port), or
   *     null for any free ones
   */
  private EngineOptions options(int host, String prefix, int[] ports) {
    List<String> devices = new ArrayList<>();
    for (int n = 0; n < settings.nics(); n++) {
      devices.add(
          "h"
              + host
              + "n"
              + n
              + "@127.0."
              + (host + 1)
              + "."
              + (n + 1)
              + (ports == null ? "" : ":" + ports[n]));
    }
    EngineOptions o =
        settings
            .applyTo(new EngineOptions())
            .setDevices(devices)
            .setWorkersPerContext(settings.workers())
            .setRpcHost("127.0." + (host + 1) + ".1")
            .setIdleConnection(settings.idle())
            .setMetadataUri(settings.metadataUri())
            .setRpcPort(ports == null ? 0 : ports[settings.nics()]);
    if (!"p2p".equals(settings.metadataUri())) {
      o.setSegmentName("host-" + host).setMetadata(new MetadataOptions().setClusterPrefix(prefix));
    }
    return o;
  }

  /**
   * The reconnect storm: every engine closes and a new one starts on the same addresses and ports,
   * all at the same moment; then every host opens every peer's segment and writes to it, and the
   * all-to-all window runs again on the new engines.
   */
  private StormRow restartAll(
      Vertx vertx,
      List<TransferEngine> engines,
      List<RegisteredBuffer> buffers,
      List<ByteBuffer> memory,
      String prefix)
      throws Exception {
    List<int[]> ports = new ArrayList<>();
    for (TransferEngine e : engines) {
      int[] p = new int[settings.nics() + 1];
      for (int n = 0; n < settings.nics(); n++) {
        p[n] = e.diagnostics().devices().get(n).lid();
      }
      String server = e.serverName();
      p[settings.nics()] = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
      ports.add(p);
    }
    long start = System.nanoTime();
    List<Future<Void>> closing = new ArrayList<>();
    for (TransferEngine e : engines) {
      closing.add(e.close());
    }
    for (Future<Void> f : closing) {
      Blocking.awaitClosed(f, DEADLINE, "engine close");
    }
    engines.clear();
    buffers.clear();
    List<Future<TransferEngine>> starting = new ArrayList<>();
    for (int h = 0; h < hosts; h++) {
      starting.add(TransferEngine.create(vertx, options(h, prefix, ports.get(h))));
    }
    for (Future<TransferEngine> f : starting) {
      engines.add(Blocking.await(f, DEADLINE, "restarted engine"));
    }
    for (int h = 0; h < hosts; h++) {
      buffers.add(
          Blocking.await(engines.get(h).register(memory.get(h), "cpu:0"), DEADLINE, "register"));
    }
    trafficOf(engines, buffers);
    SegmentHandle[][] segs = new SegmentHandle[hosts][hosts];
    AtomicLong failedInMesh = new AtomicLong();
    firstTransfers(engines, segs, new Histogram(1, TimeUnit.MINUTES.toNanos(2), 3), failedInMesh);
    double meshMillis = (System.nanoTime() - start) / 1e6;
    AtomicLong failedAfter = new AtomicLong();
    steady(segs, failedAfter);
    long handshakes = 0;
    long handshakesFailed = 0;
    long handshakeRetries = 0;
    long backoffNanos = 0;
    long retries = 0;
    for (TransferEngine e : engines) {
      OwnerStats owners = e.diagnostics().owners();
      handshakes += owners.handshakesActive();
      handshakesFailed += owners.handshakesFailed();
      handshakeRetries += owners.handshakeRetries();
      backoffNanos += owners.handshakeBackoffNanos();
      retries += e.diagnostics().counters().retries();
    }
    return new StormRow(
        hosts,
        meshMillis,
        handshakes,
        handshakesFailed,
        handshakeRetries,
        backoffNanos / 1e6,
        retries,
        failedInMesh.get(),
        failedAfter.get());
  }

  private String segmentOf(List<TransferEngine> engines, int host) {
    return "p2p".equals(settings.metadataUri()) ? engines.get(host).serverName() : "host-" + host;
  }

  /** Every host opens every peer's segment and writes once to it, all at the same moment. */
  private void firstTransfers(
      List<TransferEngine> engines, SegmentHandle[][] segs, Histogram first, AtomicLong failed)
      throws InterruptedException {
    CountDownLatch done = new CountDownLatch(hosts * (hosts - 1));
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    LongConsumer latency =
        ns -> {
          synchronized (first) {
            first.recordValue(Math.min(first.getHighestTrackableValue(), ns));
          }
        };
    for (int i = 0; i < hosts; i++) {
      for (int j = 0; j < hosts; j++) {
        if (i != j) {
          traffic.get(i).first(j, segmentOf(engines, j), deadline, segs[i], latency, failed, done);
        }
      }
    }
    if (!done.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException("first transfers did not end within " + DEADLINE);
    }
  }

  /**
   * All-to-all small batches for the window, every host at once ({@link HostTraffic#window}).
   *
   * @return bytes moved
   */
  private long steady(SegmentHandle[][] segs, AtomicLong failed) throws InterruptedException {
    long end = System.nanoTime() + settings.window().toNanos();
    AtomicLong bytes = new AtomicLong();
    CountDownLatch done = new CountDownLatch(hosts);
    for (int i = 0; i < hosts; i++) {
      traffic.get(i).window(segs[i], end, bytes, failed, done);
    }
    if (!done.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException("the all-to-all window did not end");
    }
    return bytes.get();
  }
}
