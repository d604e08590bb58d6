package io.vte.cli.scale;

import io.vertx.core.Vertx;
import io.vte.api.EngineOptions;
import io.vte.api.MetadataOptions;
import io.vte.api.OwnerStats;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.cli.common.Blocking;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One host of a multi-process scale run ({@link NetnsScaleRun}): its own JVM and engine (segment
 * {@code host-<h>} in etcd), driven by one command per line on standard input, each answered by one
 * line {@code vte-scale <command> <figures...>} (or {@code vte-scale error <message>}) on standard
 * output:
 *
 * <ul>
 *   <li>{@code first}: opens every peer's segment and writes once to it, all at once; answers
 *       {@code failed}, each first-transfer latency in ns, then the failure causes so far
 *   <li>{@code window MS}: all-to-all batches for MS ms; answers {@code bytes failed}, then the
 *       failure causes
 *   <li>{@code snap}: answers endpoints, QPs, then the growth of sockets, direct and heap bytes and
 *       threads over this JVM before the engine started, then the owners' handshakes, failed
 *       handshakes, handshake retries, backoff ns and slice retries
 *   <li>{@code quit}: closes the engine and exits
 * </ul>
 *
 * <p>Started ready when it answers {@code vte-scale ready}, after one write to itself (the
 * warm-up). Arguments are {@code key=value}: {@code host}, {@code hosts}, {@code devices}
 * (comma-separated soft device specs), {@code rpcHost}, {@code rpcPort} (default 0: any), {@code
 * metadata} (etcd URI), {@code prefix} (cluster prefix), {@code workers}, {@code size}, {@code
 * batch}, {@code idleMs}, {@code timeScale} (default 1), {@code handshakesInFlight} (the engine's
 * {@code maxHandshakesInFlight}), and {@code firstOnReady} ({@code true}: runs {@code first} right
 * after {@code ready}, unasked, as a host that restarted does).
 */
public final class ScaleNode {

  private static final Duration DEADLINE = Duration.ofSeconds(120);

  private final int host;
  private final int hosts;
  private final ScaleSettings settings;
  private final Vertx vertx = Vertx.vertx();
  private final JvmSnapshot base = JvmSnapshot.take();
  private final TransferEngine engine;
  private final HostTraffic traffic;
  private final SegmentHandle[] segs;

  /** The registered memory, reachable until the engine closes (a GC would free it). */
  private final ByteBuffer memory;

  private ScaleNode(Map<String, String> args) throws Exception {
    host = Integer.parseInt(args.get("host"));
    hosts = Integer.parseInt(args.get("hosts"));
    List<String> devices = List.of(args.get("devices").split(","));
    settings =
        new ScaleSettings(
            devices.size(),
            Integer.parseInt(args.get("workers")),
            Integer.parseInt(args.get("size")),
            Integer.parseInt(args.get("batch")),
            Duration.ZERO,
            Duration.ofMillis(Long.parseLong(args.get("idleMs"))),
            args.get("metadata"),
            Double.parseDouble(args.getOrDefault("timeScale", "1")),
            Integer.parseInt(args.get("handshakesInFlight")));
    EngineOptions o =
        settings
            .applyTo(new EngineOptions())
            .setDevices(devices)
            .setWorkersPerContext(settings.workers())
            .setRpcHost(args.get("rpcHost"))
            .setRpcPort(Integer.parseInt(args.getOrDefault("rpcPort", "0")))
            .setIdleConnection(settings.idle())
            .setMetadataUri(settings.metadataUri())
            .setSegmentName("host-" + host)
            // 32 host JVMs starting at once on 2 cores need more than the default 30 s to reach
            // etcd: a host waits for it as long as for the rest of its start
            .setMetadata(
                new MetadataOptions()
                    .setClusterPrefix(args.get("prefix"))
                    .setStartDeadline(DEADLINE));
    engine = Blocking.await(TransferEngine.create(vertx, o), DEADLINE, "engine");
    memory = ByteBuffer.allocateDirect(settings.requestBytes() * hosts * 2);
    RegisteredBuffer local = Blocking.await(engine.register(memory, "cpu:0"), DEADLINE, "register");
    traffic = new HostTraffic(vertx, engine, local, host, hosts, settings);
    segs = new SegmentHandle[hosts];
    warmUp();
  }

  /**
   * Opens this host's own segment and writes to itself once, so that the first transfers to the
   * peers measure a new peer, not this JVM's class loading (the in-JVM run warms up with a first
   * run instead).
   */
  private void warmUp() throws InterruptedException {
    AtomicLong failed = new AtomicLong();
    CountDownLatch done = new CountDownLatch(1);
    traffic.first(
        host,
        "host-" + host,
        System.nanoTime() + DEADLINE.toNanos(),
        new SegmentHandle[hosts],
        ns -> {},
        failed,
        done);
    if (!done.await(DEADLINE.toSeconds(), TimeUnit.SECONDS) || failed.get() != 0) {
      throw new IllegalStateException(
          "the warm-up write to itself failed: " + traffic.failureCauses());
    }
  }

  /**
   * Runs a host until {@code quit} or the end of standard input.
   *
   * @param argv {@code key=value} arguments (see the class comment)
   * @throws Exception when the engine cannot start
   */
  public static void main(String[] argv) throws Exception {
    Map<String, String> args = new HashMap<>();
    for (String a : argv) {
      int eq = a.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("argument not key=value: '" + a + "'");
      }
      args.put(a.substring(0, eq), a.substring(eq + 1));
    }
    ScaleNode node;
    try {
      node = new ScaleNode(args);
    } catch (Exception e) {
      // the JVM would stay up on Vert.x's threads with no engine: say why and end it
      System.out.println("vte-scale error " + String.valueOf(e.getMessage()).replace('\n', ' '));
      e.printStackTrace();
      System.exit(1);
      return;
    }
    System.out.println("vte-scale ready");
    if (Boolean.parseBoolean(args.get("firstOnReady"))) {
      System.out.println("vte-scale " + node.first());
    }
    System.out.flush();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String[] cmd = line.trim().split("\\s+");
        if (cmd[0].equals("quit")) {
          break;
        }
        String answer;
        try {
          answer = node.answer(cmd);
        } catch (Exception e) {
          answer = "error " + String.valueOf(e.getMessage()).replace('\n', ' ');
        }
        System.out.println("vte-scale " + answer);
        System.out.flush();
      }
    } finally {
      node.close();
    }
    System.exit(0);
  }

  private String answer(String[] cmd) throws Exception {
    switch (cmd[0]) {
      case "first":
        return first();
      case "window":
        return window(Long.parseLong(cmd[1]));
      case "snap":
        return snap();
      default:
        throw new IllegalArgumentException("unknown command '" + cmd[0] + "'");
    }
  }

  private String first() throws InterruptedException {
    Queue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicLong failed = new AtomicLong();
    CountDownLatch done = new CountDownLatch(hosts - 1);
    Duration wait = settings.scaled(DEADLINE);
    long deadline = System.nanoTime() + wait.toNanos();
    for (int to = 0; to < hosts; to++) {
      if (to != host) {
        traffic.first(to, "host-" + to, deadline, segs, latencies::add, failed, done);
      }
    }
    if (!done.await(wait.toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException("first transfers did not end within " + wait);
    }
    StringBuilder b = new StringBuilder("first ").append(failed.get());
    for (long l : latencies) {
      b.append(' ').append(l);
    }
    return b.append(' ').append(traffic.failureCauses()).toString();
  }

  private String window(long millis) throws InterruptedException {
    AtomicLong bytes = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    CountDownLatch done = new CountDownLatch(1);
    traffic.window(
        segs, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis), bytes, failed, done);
    if (!done.await(settings.scaled(DEADLINE).toSeconds(), TimeUnit.SECONDS)) {
      throw new IllegalStateException("the all-to-all window did not end");
    }
    return "window " + bytes.get() + " " + failed.get() + " " + traffic.failureCauses();
  }

  private String snap() {
    JvmSnapshot now = JvmSnapshot.take();
    OwnerStats owners = engine.diagnostics().owners();
    long qps =
        engine.diagnostics().devices().stream().mapToInt(d -> d.liveQpNumbers().size()).sum();
    return String.join(
        " ",
        "snap",
        Long.toString(owners.endpointsAlive()),
        Long.toString(qps),
        Long.toString(now.sockets() - base.sockets()),
        Long.toString(now.direct() - base.direct()),
        Long.toString(now.heap() - base.heap()),
        Long.toString(now.threads() - base.threads()),
        Long.toString(owners.handshakesActive()),
        Long.toString(owners.handshakesFailed()),
        Long.toString(owners.handshakeRetries()),
        Long.toString(owners.handshakeBackoffNanos()),
        Long.toString(engine.diagnostics().counters().retries()));
  }

  private void close() {
    Blocking.awaitClosed(engine.close(), DEADLINE, "engine close");
    Blocking.awaitClosed(vertx.close(), DEADLINE, "vertx close");
    memory.clear();
  }
}
