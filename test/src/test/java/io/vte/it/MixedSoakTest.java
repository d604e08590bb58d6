package io.vte.it;

import static io.vte.it.ScenarioFigures.ms;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.testkit.Await;
import io.vte.testkit.BlockedThreadGuard;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 7 scenario 7: mixed READ/WRITE against a node process, with random port flaps and frame
 * drops on both sides. Every WRITE is checked by a later READ of the same slot; every submitted
 * batch completes exactly once; heap, direct memory and threads of both JVMs stay flat (threads by
 * kind, {@link ThreadBounds}). The default suite runs it for 50 s, so every CI run watches for
 * leaks; the soak profile for 30 minutes ({@code -Dvte.it.soakMinutes=N} to change).
 */
@ExtendWith({BlockedThreadGuard.class, ReliabilityReport.class})
class MixedSoakTest {

  private static final int CHUNK = 4 << 20;
  private static final int SLOTS = 8;
  private static final long SEED = Long.getLong("vte.it.soakSeed", 7);
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  /**
   * Netty's pool grows by whole chunks per event loop; a few per loop of a JVM here, never without
   * bound.
   */
  private static final long NETTY_POOL_CAP = 128L << 20;

  /** Both JVMs make their Vert.x instance from the suite's options. */
  private static final ThreadBounds THREAD_BOUNDS = ThreadBounds.of(LocalEngines.vertxOptions());

  /** About a minute in all with the node's start, warm-up and close. */
  @Test
  void aShortMixedSoakWithRandomFaults() throws Exception {
    soak("7 mixed R/W 50 s + chaos", Duration.ofSeconds(50));
  }

  @Test
  @Tag("soak")
  void thirtyMinutesOfMixedReadWriteWithRandomFaults() throws Exception {
    Duration run = Duration.ofMinutes(Long.getLong("vte.it.soakMinutes", 30));
    soak("7 soak mixed R/W " + run.toMinutes() + " min + chaos", run);
  }

  private static void soak(String scenario, Duration run) throws Exception {
    try (NodeProcess node = NodeProcess.start("soak", "firstIp=10", "buffer=" + (SLOTS * CHUNK));
        LocalEngines local = new LocalEngines()) {
      TransferEngine engine = local.start(LocalEngines.options("mix", 2, null, 0));
      RegisteredBuffer src = local.register(engine, SLOTS * CHUNK);
      RegisteredBuffer back = local.register(engine, SLOTS * CHUNK);
      SegmentHandle seg = Await.result(engine.openSegment(node.server()), LocalEngines.WAIT);
      SplittableRandom random = new SplittableRandom(SEED);
      long[] remoteCrc = new long[SLOTS];
      boolean[] known = new boolean[SLOTS];
      boolean[] writing = new boolean[SLOTS];
      @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array is made raw
      Future<BatchResult>[] inflight = new Future[SLOTS];
      AtomicLong completions = new AtomicLong();
      long submitted = 0;
      long verifiedReads = 0;
      long maxLatency = 0;
      long[] started = new long[SLOTS];
      long[][] writes = new long[SLOTS][]; // per slot: {seed, started, ended} of the last WRITE
      long[] previousSeed = new long[SLOTS];
      long nextSeed = 1;
      FaultChaos chaos = new FaultChaos(engine, node, random.split());
      FailureTally failed = new FailureTally(chaos.log());

      JvmFigures localWarm = null;
      JvmFigures nodeWarm = null;
      long t0 = System.nanoTime();
      long warmAt = t0 + Math.min(run.toNanos() / 10, TimeUnit.MINUTES.toNanos(2));
      long end = t0 + run.toNanos();
      for (long now = System.nanoTime();
          now < end || anyInFlight(inflight);
          now = System.nanoTime()) {
        if (localWarm == null && now >= warmAt) {
          chaos.heal();
          localWarm = JvmFigures.take();
          nodeWarm = node.jvm();
        }
        if (now < end) {
          chaos.step(now);
        }
        for (int s = 0; s < SLOTS; s++) {
          if (inflight[s] != null) {
            try {
              inflight[s].toCompletionStage().toCompletableFuture().get(1, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
              if (System.nanoTime() - started[s]
                  > DEADLINE.toNanos() + TimeUnit.SECONDS.toNanos(30)) {
                throw new AssertionError(
                    "slot "
                        + s
                        + " hangs: a batch outlived its deadline by 30 s ("
                        + chaos.log().describe(started[s], System.nanoTime())
                        + "); "
                        + failed.details());
              }
              continue;
            } catch (ExecutionException e) {
              // accounted below
            }
            long endedAt = System.nanoTime();
            maxLatency = Math.max(maxLatency, endedAt - started[s]);
            RequestResult result =
                inflight[s].succeeded() ? inflight[s].result().requests().get(0) : null;
            if (result == null || result.status() != RequestStatus.COMPLETED) {
              failed.record(
                  result != null ? result.cause() : inflight[s].cause(),
                  (writing[s] ? "WRITE " : "READ ")
                      + (result != null ? result.status() : "batch failed"),
                  started[s],
                  endedAt);
              known[s] = false;
            } else if (writing[s]) {
              writes[s][2] = endedAt;
            } else {
              long offset = (long) s * CHUNK;
              if (Pattern.crc(back.address() + offset, CHUNK) != remoteCrc[s]) {
                throw new AssertionError(
                    "slot "
                        + s
                        + " did not READ back what was last written: "
                        + explain(
                            back.address() + offset,
                            writes[s],
                            previousSeed[s],
                            local.allocate(CHUNK),
                            chaos.log(),
                            started[s],
                            endedAt)
                        + "; the node's slot now "
                        + (node.crcOf(node.address() + offset, CHUNK) == remoteCrc[s]
                            ? "holds that write (the READ brought wrong bytes)"
                            : "does not hold that write (the WRITE did not land whole, or was"
                                + " overwritten)")
                        + "; "
                        + failed.details());
              }
              verifiedReads++;
            }
            inflight[s] = null;
          }
          if (now < end) {
            long offset = (long) s * CHUNK;
            writing[s] = !known[s] || random.nextBoolean();
            TransferRequest r;
            if (writing[s]) {
              previousSeed[s] = writes[s] == null ? 0 : writes[s][0];
              writes[s] = new long[] {nextSeed, System.nanoTime(), -1};
              Pattern.fill(src.address() + offset, CHUNK, nextSeed++);
              remoteCrc[s] = Pattern.crc(src.address() + offset, CHUNK);
              known[s] = true;
              r = TransferRequest.write(src, offset, seg, node.address() + offset, CHUNK);
            } else {
              r = TransferRequest.read(back, offset, seg, node.address() + offset, CHUNK);
            }
            started[s] = System.nanoTime();
            inflight[s] =
                engine.submit(List.of(r), new TransferOptions().setDeadline(DEADLINE)).result();
            inflight[s].onComplete(ar -> completions.incrementAndGet());
            submitted++;
          }
        }
      }
      chaos.heal();
      JvmFigures localEnd = JvmFigures.take();
      JvmFigures nodeEnd = node.jvm();
      long done = completions.get();
      ReliabilityReport.record(
          new ScenarioFigures(
              scenario,
              submitted,
              failed.failures(),
              ms(maxLatency),
              ms(EngineStats.of(engine).pollGapP999Nanos()),
              Double.NaN,
              String.format(
                  "%d faults, %d verified reads, completions %d/%d; local %s -> %s; node %s -> %s; %s"
                      + "; local threads %s -> %s; node threads %s -> %s",
                  chaos.faults(),
                  verifiedReads,
                  done,
                  submitted,
                  localWarm,
                  localEnd,
                  nodeWarm,
                  nodeEnd,
                  failed.details(),
                  localWarm.threads(),
                  localEnd.threads(),
                  nodeWarm.threads(),
                  nodeEnd.threads())));
      assertEquals(submitted, done, "every batch completed exactly once");
      assertEquals(
          0,
          failed.failures(),
          "no transfer failed: "
              + failed.details()
              + "; local "
              + EngineStats.of(engine).counters()
              + "; node "
              + node.stats().counters());
      assertTrue(verifiedReads > 0, "reads verified writes");
      assertFlat("local", localWarm, localEnd);
      assertFlat("node", nodeWarm, nodeEnd);
    }
  }

  /**
   * Which parts of a slot read back hold the last write's pattern, the write's before it, or
   * neither, with the faults around the write and the read.
   */
  private static String explain(
      long readBack,
      long[] write,
      long previousSeed,
      long scratch,
      FaultLog faults,
      long readStarted,
      long readEnded) {
    int piece = CHUNK / 16;
    StringBuilder parts = new StringBuilder();
    for (int p = 0; p < 16; p++) {
      long actual = Pattern.crc(readBack + (long) p * piece, piece);
      Pattern.fill(scratch, CHUNK, write[0]);
      if (Pattern.crc(scratch + (long) p * piece, piece) == actual) {
        parts.append('L');
        continue;
      }
      Pattern.fill(scratch, CHUNK, previousSeed);
      parts.append(Pattern.crc(scratch + (long) p * piece, piece) == actual ? 'P' : '?');
    }
    return String.format(
        "per 256 KiB [%s] (L the last write's pattern, P the one before it, ? neither); last"
            + " write %d (%s), the READ (%s)",
        parts,
        write[0],
        faults.describe(write[1], write[2]),
        faults.describe(readStarted, readEnded));
  }

  private static boolean anyInFlight(Future<?>[] inflight) {
    for (Future<?> f : inflight) {
      if (f != null) {
        return true;
      }
    }
    return false;
  }

  private static void assertFlat(String who, JvmFigures warm, JvmFigures end) {
    assertTrue(
        end.heapUsed() <= warm.heapUsed() + (64L << 20),
        who + " heap flat: " + warm + " -> " + end);
    assertTrue(
        end.directUsed() <= warm.directUsed() + (16L << 20),
        who + " direct memory flat: " + warm + " -> " + end);
    assertTrue(
        end.nettyPoolDirect() <= NETTY_POOL_CAP,
        who + " Netty's pool stays bounded: " + warm + " -> " + end);
    List<String> grown = THREAD_BOUNDS.excess(warm.threads(), end.threads());
    assertTrue(
        grown.isEmpty(),
        who
            + " threads flat (no kind of thread grows, Vert.x pools stay within their bounds "
            + THREAD_BOUNDS.perInstance()
            + "): grew "
            + grown
            + "; per name after warm-up "
            + warm.threads()
            + ", at the end "
            + end.threads());
  }
}
