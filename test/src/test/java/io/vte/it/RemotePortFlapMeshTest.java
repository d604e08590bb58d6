package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.BatchResult;
import io.vte.api.EngineOptions;
import io.vte.api.FaultInjector;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import io.vte.testkit.TimingTargets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 41 item 1: three engines in a full mesh, three soft devices each, QP timeouts at the
 * engine's defaults, every engine writing to both others one request at a time while a flapper
 * takes a random device's port down and up again (at most one device per engine down at once, so
 * every pair keeps a healthy rail). A WRITE to a device whose port is down is known at once by the
 * device's own engine; the writers must hear of it through the pushed device states and move their
 * slices at once, instead of waiting out the QP failure time (timeout x retries, about 8 s at the
 * defaults). Every request must complete (each one checked byte for byte at its destination) within
 * 1 s plus its transfer time (four times the median of a fault-free warm-up). Prints the latency
 * distribution (p50, p99, max). A missed latency target is tried once more (the shared machine's
 * load shows in the tail); a failed request fails at once. Duration: {@code
 * -Dvte.it.meshFlapSeconds=N} (20 by default).
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class RemotePortFlapMeshTest {

  static final int ENGINES = 3;
  static final int DEVICES = 3;
  static final int CHUNK = 1 << 20;
  static final Duration RUN = Duration.ofSeconds(Long.getLong("vte.it.meshFlapSeconds", 20));
  static final Duration WARM_UP = Duration.ofSeconds(2);
  static final Duration REQUEST_DEADLINE = Duration.ofSeconds(30);
  static final long BUDGET_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** A request this slow is printed with its end time, to be read beside the flap log. */
  static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(400);

  private static final long ORIGIN = System.nanoTime();

  /** Milliseconds since the class was loaded, for the flap log and slow requests. */
  private static String at() {
    return (System.nanoTime() - ORIGIN) / 1_000_000 + " ms";
  }

  @Test
  void remotePortFlapsCostNoQpTimeout() throws Exception {
    try (LocalEngines local = new LocalEngines()) {
      List<TransferEngine> engines = new ArrayList<>();
      List<RegisteredBuffer> sources = new ArrayList<>();
      List<RegisteredBuffer> targets = new ArrayList<>();
      for (int e = 0; e < ENGINES; e++) {
        List<String> devices = new ArrayList<>();
        for (int d = 0; d < DEVICES; d++) {
          devices.add("m" + e + "d" + d + "@127.0.0." + (140 + e * DEVICES + d) + ":0");
        }
        // The engine's default QP timeout and retries: what a user gets.
        EngineOptions options =
            new EngineOptions()
                .setDevices(devices)
                .setWorkersPerContext(2)
                .setRpcHost("127.0.0.1")
                .setRpcPort(0);
        TransferEngine engine = local.start(options);
        engines.add(engine);
        // A source slot per peer, and a target slot per peer: engine e writes slot e of its peers.
        sources.add(local.register(engine, ENGINES * CHUNK));
        targets.add(local.register(engine, ENGINES * CHUNK));
      }
      List<Pair> pairs = new ArrayList<>();
      for (int s = 0; s < ENGINES; s++) {
        for (int t = 0; t < ENGINES; t++) {
          if (s != t) {
            SegmentHandle segment =
                Await.result(
                    engines.get(s).openSegment(engines.get(t).serverName()), LocalEngines.WAIT);
            pairs.add(new Pair(engines.get(s), sources.get(s), segment, targets.get(t), s, t));
          }
        }
      }
      long[] warm = run(pairs, WARM_UP, null);
      Arrays.sort(warm);
      long transferNanos = 4 * Math.max(1, warm[warm.length / 2]);
      TimingTargets.retryOnce(
          "remote port flap mesh",
          attempt -> {
            AtomicBoolean flapping = new AtomicBoolean(true);
            List<String> flaps = new CopyOnWriteArrayList<>();
            Thread flapper = new Thread(() -> flap(engines, flapping, flaps), "mesh-port-flapper");
            long[] latencies;
            flapper.start();
            try {
              latencies = run(pairs, RUN, flapping);
            } finally {
              flapping.set(false);
              flapper.join(30_000);
            }
            Arrays.sort(latencies);
            double p50 = ScenarioFigures.ms(latencies[latencies.length / 2]);
            double p99 = ScenarioFigures.ms(latencies[(int) (latencies.length * 0.99)]);
            double max = ScenarioFigures.ms(latencies[latencies.length - 1]);
            String figures =
                String.format(
                    "%d requests of %d KiB, %d port actions: p50 %.1f ms, p99 %.1f ms, max %.1f ms"
                        + " (budget %.1f ms)",
                    latencies.length,
                    CHUNK >> 10,
                    flaps.size(),
                    p50,
                    p99,
                    max,
                    ScenarioFigures.ms(BUDGET_NANOS + transferNanos));
            System.out.println("remote port flap mesh: " + figures);
            ReliabilityReport.record(
                new ScenarioFigures(
                    "3x3 mesh, remote port flaps" + (attempt > 1 ? " (retry)" : ""),
                    latencies.length,
                    0,
                    max,
                    Double.NaN,
                    Double.NaN,
                    figures));
            assertTrue(flaps.size() >= 4, "the flapper took ports down and up: " + flaps);
            long worst = latencies[latencies.length - 1];
            return worst <= BUDGET_NANOS + transferNanos
                ? List.<String>of()
                : List.of(
                    "a request over 1 s + its transfer time: " + figures + "; flaps " + flaps);
          });
      long pushedHoldDowns = 0;
      for (TransferEngine e : engines) {
        pushedHoldDowns += e.diagnostics().peerDevices().pushedHoldDowns();
      }
      assertTrue(
          pushedHoldDowns > 0, "the writers heard of the flaps through pushed device states");
    }
  }

  /**
   * Every pair writes one request at a time for {@code duration}, each with a fresh pattern, and
   * checks its destination slot byte for byte after completion.
   *
   * @return every request's latency, nanoseconds
   */
  private static long[] run(List<Pair> pairs, Duration duration, AtomicBoolean faults)
      throws Exception {
    ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<Thread> threads = new ArrayList<>();
    long end = System.nanoTime() + duration.toNanos();
    for (Pair p : pairs) {
      Thread t =
          new Thread(
              () -> {
                try {
                  for (long seed = 1; System.nanoTime() < end; seed++) {
                    long latency = p.writeChecked(seed);
                    latencies.add(latency);
                    if (latency > SLOW_NANOS) {
                      System.out.printf(
                          "slow request %d->%d: %d ms, ended at %s%n",
                          p.source, p.target, latency / 1_000_000, at());
                    }
                  }
                } catch (Throwable e) {
                  failures.add(e);
                }
              },
              "mesh-writer-" + p.source + "-" + p.target);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join(duration.toMillis() + 2 * REQUEST_DEADLINE.toMillis());
    }
    assertEquals(List.of(), failures, "no request failed or landed wrong bytes");
    return latencies.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * Every 150-400 ms a random device goes down for 200-800 ms, at most one per engine at once, so
   * every pair of engines keeps a healthy rail.
   */
  private static void flap(List<TransferEngine> engines, AtomicBoolean on, List<String> log) {
    SplittableRandom random = new SplittableRandom(41);
    long[] upAt = new long[ENGINES];
    String[] down = new String[ENGINES];
    long next = System.nanoTime();
    while (on.get()) {
      long now = System.nanoTime();
      for (int e = 0; e < ENGINES; e++) {
        if (down[e] != null && now >= upAt[e]) {
          LocalEngines.faults(engines.get(e)).portUp(down[e]);
          log.add(at() + " up " + down[e]);
          down[e] = null;
        }
      }
      if (now >= next) {
        int e = random.nextInt(ENGINES);
        if (down[e] == null) {
          FaultInjector faults = LocalEngines.faults(engines.get(e));
          down[e] = engines.get(e).diagnostics().devices().get(random.nextInt(DEVICES)).name();
          faults.portDown(down[e]);
          log.add(at() + " down " + down[e]);
          upAt[e] = now + TimeUnit.MILLISECONDS.toNanos(200 + random.nextInt(600));
        }
        next = now + TimeUnit.MILLISECONDS.toNanos(150 + random.nextInt(250));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    for (int e = 0; e < ENGINES; e++) {
      if (down[e] != null) {
        LocalEngines.faults(engines.get(e)).portUp(down[e]);
        log.add(at() + " up " + down[e]);
      }
    }
  }

  /** Engine {@code source} writing into its slot of engine {@code target}'s buffer. */
  private record Pair(
      TransferEngine engine,
      RegisteredBuffer local,
      SegmentHandle segment,
      RegisteredBuffer remote,
      int source,
      int target) {

    /**
     * @return the request's latency, after its destination was checked
     */
    long writeChecked(long seed) {
      long localOffset = (long) target * CHUNK;
      long remoteAddress = remote.address() + (long) source * CHUNK;
      long patternSeed = seed * 64 + source * 8L + target;
      Pattern.fill(local.address() + localOffset, CHUNK, patternSeed);
      long start = System.nanoTime();
      BatchResult result =
          Await.result(
              engine
                  .submit(
                      List.of(
                          TransferRequest.write(local, localOffset, segment, remoteAddress, CHUNK)),
                      new TransferOptions().setDeadline(REQUEST_DEADLINE))
                  .result(),
              REQUEST_DEADLINE.plusSeconds(5));
      long latency = System.nanoTime() - start;
      if (!result.allCompleted()) {
        throw new AssertionError(
            "write " + source + "->" + target + " #" + seed + " failed: " + result.requests());
      }
      if (Pattern.crc(local.address() + localOffset, CHUNK) != Pattern.crc(remoteAddress, CHUNK)) {
        throw new AssertionError(
            "write " + source + "->" + target + " #" + seed + " landed other bytes");
      }
      return latency;
    }
  }
}
