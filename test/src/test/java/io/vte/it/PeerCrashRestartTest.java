package io.vte.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Issue 41 item 2: a peer process SIGKILLed and restarted (same name, same ports) many times while
 * one engine writes 1 MiB requests to it and reads each one back (both local devices, both of the
 * peer's: slices on every rail), beside a second peer that takes writes all along. Each request is
 * checked: a write read back byte-exact, or a typed failure. Per kill: the requests in flight to
 * the dead peer and those sent to it while it is dead end PEER_UNREACHABLE within a second (the
 * detection time, p50 and max reported), the other peer keeps at least 0.9x its rate of the same
 * round before the kill, and after the restart the kept handle refreshes and no request fails or
 * stalls.
 */
@ExtendWith(BlockedThreadGuard.class)
class PeerCrashRestartTest {

  private static final int KILLS = 4;
  private static final int CHUNK = 256 << 10;
  private static final int SLOTS = 2;
  private static final Duration DEADLINE = Duration.ofSeconds(5);
  private static final long PHASE_NANOS = Duration.ofMillis(1500).toNanos();
  private static final long DETECTION_LIMIT_NANOS = Duration.ofSeconds(1).toNanos();

  private final List<NodeProcess> nodes = new ArrayList<>();
  private final LocalEngines local = new LocalEngines();

  @AfterEach
  void stop() {
    try {
      local.close();
    } finally {
      nodes.forEach(NodeProcess::close);
    }
  }

  private NodeProcess node(String... args) throws Exception {
    NodeProcess n = NodeProcess.start("peer", args);
    nodes.add(n);
    return n;
  }

  /** One request's outcome. */
  private record Outcome(long submitted, long ended, boolean ok, ErrorCode code, String why) {}

  /**
   * Requests on {@link #SLOTS} slots to one peer, each slot a WRITE of a fresh pattern then (when
   * {@code readBack}) a READ of the same range compared with what was written.
   */
  private final class Stream {
    final SegmentHandle segment;

    /** The peer's buffer: a restarted peer registers a new one (the kept handle refreshes). */
    long remote;

    final RegisteredBuffer source;
    final RegisteredBuffer sink;
    final boolean readBack;
    final TransferEngine engine;
    final List<Outcome> outcomes = new ArrayList<>();
    final List<Future<BatchResult>> inflight = new ArrayList<>(Collections.nCopies(SLOTS, null));
    final long[] submitted = new long[SLOTS];
    final boolean[] reading = new boolean[SLOTS];
    final AtomicLongArray endedAt = new AtomicLongArray(SLOTS);
    long seed = 1;
    long bytes;

    Stream(TransferEngine engine, SegmentHandle segment, long remote, boolean readBack) {
      this.engine = engine;
      this.segment = segment;
      this.remote = remote;
      this.readBack = readBack;
      this.source = local.register(engine, SLOTS * CHUNK);
      this.sink = local.register(engine, SLOTS * CHUNK);
    }

    void submit(int s, boolean read) {
      long offset = (long) s * CHUNK;
      if (!read) {
        Pattern.fill(source.address() + offset, CHUNK, seed++);
      }
      reading[s] = read;
      submitted[s] = System.nanoTime();
      TransferRequest r =
          read
              ? TransferRequest.read(sink, offset, segment, remote + offset, CHUNK)
              : TransferRequest.write(source, offset, segment, remote + offset, CHUNK);
      endedAt.set(s, 0);
      Future<BatchResult> f =
          engine.submit(List.of(r), new TransferOptions().setDeadline(DEADLINE)).result();
      f.onComplete(ar -> endedAt.set(s, System.nanoTime()));
      inflight.set(s, f);
    }

    /** Handles the slots whose request ended; starts the next one while {@code more}. */
    void step(boolean more) {
      for (int s = 0; s < SLOTS; s++) {
        Future<BatchResult> f = inflight.get(s);
        if (f == null || !f.isComplete()) {
          continue;
        }
        inflight.set(s, null);
        // when the request ended, not when this thread (slow on a loaded machine) looked
        long now = endedAt.get(s) != 0 ? endedAt.get(s) : System.nanoTime();
        RequestResult r = f.succeeded() ? f.result().requests().get(0) : null;
        boolean ok = r != null && r.status() == RequestStatus.COMPLETED;
        ErrorCode code = null;
        String why = null;
        if (!ok) {
          Throwable cause = r != null ? r.cause() : f.cause();
          code = cause instanceof io.vte.api.VteException v ? v.code() : null;
          why = String.valueOf(cause);
        } else if (reading[s]) {
          long offset = (long) s * CHUNK;
          long want = Pattern.crc(source.address() + offset, CHUNK);
          long got = Pattern.crc(sink.address() + offset, CHUNK);
          if (want != got) {
            ok = false;
            why = "read back differs from what was written at slot " + s;
          }
        } else {
          bytes += CHUNK;
        }
        outcomes.add(new Outcome(submitted[s], now, ok, code, why));
        if (more) {
          submit(s, ok && readBack && !reading[s]);
        }
      }
    }

    boolean idle() {
      return inflight.stream().allMatch(f -> f == null);
    }

    void start() {
      for (int s = 0; s < SLOTS; s++) {
        submit(s, false);
      }
    }
  }

  /** Runs both streams until {@code until}, then lets what is in flight end. */
  private static void run(long until, Stream... streams) throws Exception {
    long settle = until + DEADLINE.toNanos() + Duration.ofSeconds(2).toNanos();
    while (true) {
      long now = System.nanoTime();
      boolean more = now < until;
      boolean idle = true;
      List<CompletableFuture<?>> waits = new ArrayList<>();
      for (Stream st : streams) {
        st.step(more);
        idle &= st.idle();
        for (Future<BatchResult> f : st.inflight) {
          if (f != null) {
            waits.add(f.toCompletionStage().toCompletableFuture());
          }
        }
      }
      if (!more && idle) {
        return;
      }
      assertTrue(now < settle, "every request ends by its deadline");
      try {
        CompletableFuture.anyOf(waits.toArray(CompletableFuture[]::new))
            .get(5, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        // no request ended in 5 ms: look at the clock again
      } catch (ExecutionException e) {
        // a request's future failed: step() records it
      }
    }
  }

  private static double rate(Stream s, long bytesBefore, long nanos) {
    return (s.bytes - bytesBefore) / (nanos / 1e9);
  }

  @Test
  void aPeerKilledAndRestartedManyTimesIsFoundWithinASecondAndResumes() throws Exception {
    TransferEngine sender = local.start(LocalEngines.options("send", 2, null, 0));
    NodeProcess bystanderNode = node("firstIp=20", "buffer=" + (SLOTS * CHUNK));
    NodeProcess victim = node("firstIp=10", "buffer=" + (SLOTS * CHUNK));
    String server = victim.server();
    List<String> again = victim.sameAddressArgs();
    SegmentHandle kept = Await.result(sender.openSegment(victim.server()), LocalEngines.WAIT);
    Stream toVictim = new Stream(sender, kept, victim.address(), true);
    Stream toBystander =
        new Stream(
            sender,
            Await.result(sender.openSegment(bystanderNode.server()), LocalEngines.WAIT),
            bystanderNode.address(),
            false);
    List<Long> detections = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    long maxAfterRestart = 0;
    for (int round = 0; round < KILLS; round++) {
      if (round > 0) {
        victim = node("firstIp=10", "buffer=" + (SLOTS * CHUNK), again.get(0), again.get(1));
        assertEquals(server, victim.server(), "restarted on the same address");
        toVictim.remote = victim.address();
      }
      // Alive: every request succeeds, the first ones to a restarted peer too (kept handle).
      int before = toVictim.outcomes.size();
      long aliveStart = System.nanoTime();
      long bystanderBytes = toBystander.bytes;
      toVictim.start();
      toBystander.start();
      run(aliveStart + PHASE_NANOS, toVictim, toBystander);
      double rateBefore = rate(toBystander, bystanderBytes, System.nanoTime() - aliveStart);
      for (Outcome o : toVictim.outcomes.subList(before, toVictim.outcomes.size())) {
        assertTrue(o.ok(), "round " + round + ": a request to the live peer failed: " + o.why());
        maxAfterRestart = Math.max(maxAfterRestart, o.ended() - o.submitted());
      }
      // Killed mid-stream.
      int atKill = toVictim.outcomes.size();
      bystanderBytes = toBystander.bytes;
      toVictim.start();
      toBystander.start();
      victim.process().destroyForcibly();
      assertTrue(victim.process().waitFor(10, TimeUnit.SECONDS), "SIGKILL ends the peer");
      long killed = System.nanoTime();
      run(killed + PHASE_NANOS, toVictim, toBystander);
      ratios.add(rate(toBystander, bystanderBytes, System.nanoTime() - killed) / rateBefore);
      long detection = 0;
      for (Outcome o : toVictim.outcomes.subList(atKill, toVictim.outcomes.size())) {
        if (o.ok()) {
          assertTrue(o.ended() - killed < DETECTION_LIMIT_NANOS, "only requests done at the kill");
          continue;
        }
        assertEquals(ErrorCode.PEER_UNREACHABLE, o.code(), "typed failure: " + o.why());
        long waited = o.ended() - Math.max(killed, o.submitted());
        detection = Math.max(detection, waited);
      }
      detections.add(detection);
      assertTrue(
          toVictim.outcomes.subList(atKill, toVictim.outcomes.size()).stream()
              .anyMatch(o -> !o.ok()),
          "requests to the dead peer fail");
      for (Outcome o : toBystander.outcomes) {
        assertTrue(o.ok(), "the other peer never fails: " + o.why());
      }
      victim.close();
    }
    List<Long> sorted = new ArrayList<>(detections);
    sorted.sort(null);
    double minRatio = ratios.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    System.out.printf(
        "peer crash/restart x%d: detection p50 %.0f ms max %.0f ms (%s); other peer rate ratio"
            + " min %.2f (%s); max latency after a restart %.0f ms; %d requests to the victim%n",
        KILLS,
        sorted.get(sorted.size() / 2) / 1e6,
        sorted.get(sorted.size() - 1) / 1e6,
        detections.stream().map(d -> String.valueOf(d / 1_000_000)).toList(),
        minRatio,
        ratios.stream().map(r -> String.format("%.2f", r)).toList(),
        maxAfterRestart / 1e6,
        toVictim.outcomes.size());
    assertTrue(
        sorted.get(sorted.size() - 1) <= DETECTION_LIMIT_NANOS,
        "every request to a killed peer ends within 1 s: " + detections);
    assertTrue(minRatio >= 0.9, "the other peer keeps >= 0.9x its rate: " + ratios);
  }
}
