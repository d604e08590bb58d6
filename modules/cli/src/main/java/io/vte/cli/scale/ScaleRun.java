package io.vte.cli.scale;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.OwnerStats;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.cli.bench.Blocking;
import java.io.File;
import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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

  /** First message of each failure cause (its error code), for the report. */
  private final java.util.concurrent.ConcurrentHashMap<String, String> causes =
      new java.util.concurrent.ConcurrentHashMap<>();

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
    return new java.util.TreeMap<>(causes);
  }

  private void noteFailure(Throwable t) {
    String code =
        t instanceof io.vte.api.VteException v ? v.code().name() : t.getClass().getSimpleName();
    causes.putIfAbsent(code, String.valueOf(t.getMessage()));
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
      Snapshot base = Snapshot.take();
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
      SegmentHandle[][] segs = new SegmentHandle[hosts][hosts];
      Histogram first = new Histogram(1, TimeUnit.MINUTES.toNanos(2), 3);
      AtomicLong failed = new AtomicLong();
      long stormStart = System.nanoTime();
      firstTransfers(engines, buffers, segs, first, failed);
      double stormSeconds = (System.nanoTime() - stormStart) / 1e9;
      long handshakes = 0;
      for (TransferEngine e : engines) {
        handshakes += e.diagnostics().owners().handshakesActive();
      }
      long bytes = steady(engines, buffers, segs, failed);
      Snapshot busy = Snapshot.take();
      double endpoints = 0;
      double qps = 0;
      for (TransferEngine e : engines) {
        endpoints += e.diagnostics().owners().endpointsAlive();
        qps += e.diagnostics().devices().stream().mapToInt(d -> d.liveQpNumbers().size()).sum();
      }
      // the connections close after idleConnectionMs; the NIC checks every 100 ms
      LockSupport.parkNanos(settings.idle().toNanos() + TimeUnit.MILLISECONDS.toNanos(1500));
      Snapshot idle = Snapshot.take();
      if (storm) {
        stormRow = restartAll(vertx, engines, buffers, memory, prefix);
      }
      return new ScaleRow(
          hosts,
          settings.nics(),
          endpoints / hosts,
          qps / hosts,
          (busy.sockets - base.sockets) / (double) hosts,
          (idle.sockets - base.sockets) / (double) hosts,
          (busy.direct - base.direct) / (double) hosts,
          (idle.direct - base.direct) / (double) hosts,
          (busy.heap - base.heap) / (double) hosts,
          (busy.threads - base.threads) / (double) hosts,
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
        new EngineOptions()
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
    SegmentHandle[][] segs = new SegmentHandle[hosts][hosts];
    AtomicLong failedInMesh = new AtomicLong();
    firstTransfers(
        engines, buffers, segs, new Histogram(1, TimeUnit.MINUTES.toNanos(2), 3), failedInMesh);
    double meshMillis = (System.nanoTime() - start) / 1e6;
    AtomicLong failedAfter = new AtomicLong();
    steady(engines, buffers, segs, failedAfter);
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

  /**
   * Opens a peer's segment once its descriptor lists the peer's buffer: through etcd a registration
   * is published asynchronously, so a peer opening right after it may read the descriptor from
   * before it (asked again every 20 ms until the deadline).
   */
  private Future<SegmentHandle> openWithBuffer(TransferEngine e, String name, long deadline) {
    return e.openSegment(name)
        .compose(
            seg ->
                !seg.buffers().isEmpty() || System.nanoTime() - deadline >= 0
                    ? Future.succeededFuture(seg)
                    : vertx
                        .timer(20, TimeUnit.MILLISECONDS)
                        .compose(t -> openWithBuffer(e, name, deadline)));
  }

  private String segmentOf(List<TransferEngine> engines, int host) {
    return "p2p".equals(settings.metadataUri()) ? engines.get(host).serverName() : "host-" + host;
  }

  /** Every host opens every peer's segment and writes once to it, all at the same moment. */
  private void firstTransfers(
      List<TransferEngine> engines,
      List<RegisteredBuffer> buffers,
      SegmentHandle[][] segs,
      Histogram first,
      AtomicLong failed)
      throws InterruptedException {
    int pairs = hosts * (hosts - 1);
    CountDownLatch done = new CountDownLatch(pairs);
    for (int i = 0; i < hosts; i++) {
      for (int j = 0; j < hosts; j++) {
        if (i == j) {
          continue;
        }
        int from = i;
        int to = j;
        long t0 = System.nanoTime();
        TransferEngine e = engines.get(i);
        openWithBuffer(e, segmentOf(engines, j), System.nanoTime() + DEADLINE.toNanos())
            .compose(
                seg -> {
                  segs[from][to] = seg;
                  return e.submit(List.of(write(buffers, from, to, seg)), options()).result();
                })
            .onComplete(
                ar -> {
                  if (ar.failed()) {
                    failed.incrementAndGet();
                    noteFailure(ar.cause());
                  } else if (!ar.result().allCompleted()) {
                    failed.incrementAndGet();
                    noteFailure(ar.result().requests().get(0).cause());
                  }
                  synchronized (first) {
                    first.recordValue(
                        Math.min(first.getHighestTrackableValue(), System.nanoTime() - t0));
                  }
                  done.countDown();
                });
      }
    }
    if (!done.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException("first transfers did not end within " + DEADLINE);
    }
  }

  /**
   * All-to-all small batches for the window: each host keeps one batch in flight, its requests
   * going round-robin to every peer.
   *
   * @return bytes moved
   */
  private long steady(
      List<TransferEngine> engines,
      List<RegisteredBuffer> buffers,
      SegmentHandle[][] segs,
      AtomicLong failed)
      throws InterruptedException {
    long end = System.nanoTime() + settings.window().toNanos();
    AtomicLong bytes = new AtomicLong();
    CountDownLatch done = new CountDownLatch(hosts);
    for (int i = 0; i < hosts; i++) {
      loop(engines.get(i), buffers, segs, i, 0, end, bytes, failed, done);
    }
    if (!done.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException("the all-to-all window did not end");
    }
    return bytes.get();
  }

  private void loop(
      TransferEngine e,
      List<RegisteredBuffer> buffers,
      SegmentHandle[][] segs,
      int from,
      int next,
      long end,
      AtomicLong bytes,
      AtomicLong failed,
      CountDownLatch done) {
    if (System.nanoTime() - end >= 0 || hosts < 2) {
      done.countDown();
      return;
    }
    List<TransferRequest> batch = new ArrayList<>();
    int to = next;
    for (int k = 0; k < settings.batch(); k++) {
      to = (to + 1) % hosts;
      if (to == from) {
        to = (to + 1) % hosts;
      }
      batch.add(write(buffers, from, to, segs[from][to]));
    }
    int last = to;
    Future<BatchResult> f = e.submit(batch, options()).result();
    f.onComplete(
        ar -> {
          if (ar.succeeded()) {
            bytes.addAndGet(ar.result().bytes());
            for (io.vte.api.RequestResult r : ar.result().requests()) {
              if (r.status() != RequestStatus.COMPLETED) {
                failed.incrementAndGet();
                noteFailure(
                    r.cause() != null ? r.cause() : new IllegalStateException(r.status().name()));
              }
            }
          } else {
            failed.addAndGet(batch.size());
            noteFailure(ar.cause());
          }
          loop(e, buffers, segs, from, last, end, bytes, failed, done);
        });
  }

  private TransferRequest write(
      List<RegisteredBuffer> buffers, int from, int to, SegmentHandle seg) {
    int size = settings.requestBytes();
    RegisteredBuffer remote = buffers.get(to);
    return TransferRequest.write(
        buffers.get(from), 0, seg, remote.address() + (long) size * from, size);
  }

  private static TransferOptions options() {
    return new TransferOptions().setDeadline(Duration.ofSeconds(60));
  }

  /** JVM-wide figures at one moment (after a GC). */
  private record Snapshot(long direct, long heap, long threads, long sockets) {

    static Snapshot take() {
      System.gc();
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300)); // cleaners free direct buffers
      System.gc();
      long direct = 0;
      for (BufferPoolMXBean p : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
        if (p.getName().equals("direct")) {
          direct = p.getMemoryUsed();
        }
      }
      long netty = io.netty.util.internal.PlatformDependent.usedDirectMemory();
      return new Snapshot(
          direct + Math.max(0, netty),
          ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(),
          ManagementFactory.getThreadMXBean().getThreadCount(),
          countSockets());
    }

    private static long countSockets() {
      File[] fds = new File("/proc/self/fd").listFiles();
      long n = 0;
      for (File fd : fds == null ? new File[0] : fds) {
        try {
          if (Files.readSymbolicLink(Path.of(fd.getPath())).toString().startsWith("socket:")) {
            n++;
          }
        } catch (IOException e) {
          // closed while listed
        }
      }
      return n;
    }
  }
}
