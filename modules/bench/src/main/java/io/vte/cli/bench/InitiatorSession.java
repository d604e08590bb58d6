package io.vte.cli.bench;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.Integrity;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOpcode;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.cli.bench.fault.FaultScheduler;
import io.vte.cli.common.Blocking;
import io.vte.verbs.DirectMemory;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The initiating side of a bench: a local source/sink buffer registered with the initiating engine,
 * the target's segment, and the measurement (warm-up, faults, progress, measured run, verification,
 * and whether it stalled or overran the time asked for). Used by the one-JVM form and by {@code vte
 * bench initiator}.
 */
public final class InitiatorSession implements AutoCloseable {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int READ_BACK_CHUNK = 16 << 20;

  private final Vertx vertx;
  private final TransferEngine engine;
  private final SegmentHandle segment;
  private final long remoteBase;
  private final long region;
  private final long localMemory;

  /** The end-to-end check of the measured batches, or null for the engine's option. */
  private Integrity integrity;

  /** Source patterns written so far: each measured WRITE window gets a new one. */
  private long writeRounds;

  private final RegisteredBuffer local;

  /** Set by {@link #stop()}; the load of the measurement going on, which a stop ends. */
  private volatile boolean stopped;

  private volatile LoadGenerator running;

  /** Set by {@link #requireSameHost()}: every measured window must take the same-host rail. */
  private boolean sameHostRequired;

  private InitiatorSession(
      Vertx vertx,
      TransferEngine engine,
      SegmentHandle segment,
      long remoteBase,
      long region,
      long localMemory,
      RegisteredBuffer local) {
    this.vertx = vertx;
    this.engine = engine;
    this.segment = segment;
    this.remoteBase = remoteBase;
    this.region = region;
    this.localMemory = localMemory;
    this.local = local;
  }

  /**
   * Opens the target's segment, checks its first buffer is large enough, and registers a local
   * buffer filled with the source pattern.
   *
   * @param vertx the initiator's Vert.x
   * @param engine the initiating engine
   * @param target the target's segment name
   * @param region bytes the load covers
   * @return the session
   * @throws Exception PEER_UNREACHABLE/SEGMENT_NOT_FOUND from the engine, OUT_OF_RANGE when the
   *     target's buffer is too small
   */
  public static InitiatorSession open(
      Vertx vertx, TransferEngine engine, String target, long region) throws Exception {
    SegmentHandle segment =
        Blocking.await(engine.openSegment(target), WAIT, "opening segment " + target);
    if (segment.buffers().isEmpty()) {
      throw new VteException(
          ErrorCode.SEGMENT_NOT_FOUND, "target " + target + " has no registered buffer");
    }
    SegmentBuffer remote = segment.buffers().get(0);
    if (remote.length() < region) {
      throw new VteException(
          ErrorCode.OUT_OF_RANGE,
          "target "
              + target
              + " registered "
              + remote.length()
              + " bytes but this load needs "
              + region
              + " (threads x depth x batch-size x block-size)");
    }
    long memory = DirectMemory.allocate(region);
    try {
      DataPattern.fill(memory, region, DataPattern.SOURCE_SEED);
      RegisteredBuffer local =
          Blocking.await(engine.register(memory, region, "cpu:0"), WAIT, "registering memory");
      return new InitiatorSession(vertx, engine, segment, remote.address(), region, memory, local);
    } catch (Exception e) {
      DirectMemory.free(memory);
      throw e;
    }
  }

  /**
   * Makes every later measurement fail (its result {@link RailBytes#fellBack()}) when a measured
   * request moved over a network rail, also when the engine has no same-host rail to the target at
   * all; without this call only a run whose engine has a same-host rail to the target after the
   * warm-up is held to it.
   */
  public void requireSameHost() {
    sameHostRequired = true;
  }

  /**
   * Warms up, then measures with faults and progress, then verifies.
   *
   * @param plan the load
   * @param warmup warm-up time (not measured)
   * @param measure measured time
   * @param faults fault schedulers, started when the measurement starts
   * @param progress where to print progress (null for none)
   * @param terminal rewrite the progress line in place
   * @return the result
   * @throws Exception when the run could not be driven at all
   */
  public BenchResult measure(
      LoadGenerator.Plan plan,
      Duration warmup,
      Duration measure,
      List<FaultScheduler> faults,
      PrintWriter progress,
      boolean terminal)
      throws Exception {
    return measure(plan, warmup, measure, 1, () -> {}, faults, progress, terminal);
  }

  /**
   * Warms up, then measures in {@code windows} equal windows with a pause for {@code beforeWindow}
   * before each (the load drains, then restarts after it), then verifies: a WRITE run writes a
   * source pattern no earlier window wrote in each window and reads the target back after it, so
   * {@code verified} proves the measured windows wrote (and each request stamps its block, so a
   * slot's last WRITE that did nothing is caught too). The result adds the windows up; allocation
   * and the rails' bytes count only what the windows allocated and moved.
   *
   * @param plan the load
   * @param warmup warm-up time (not measured)
   * @param measure measured time, all windows together
   * @param windows how many windows (1 = one continuous run)
   * @param beforeWindow runs on the calling thread before each window, the load paused (e.g. a
   *     baseline slice)
   * @param faults fault schedulers, started when the first window starts (only with one window)
   * @param progress where to print progress (null for none)
   * @param terminal rewrite the progress line in place
   * @return the result
   * @throws Exception when the run could not be driven at all
   */
  public BenchResult measure(
      LoadGenerator.Plan plan,
      Duration warmup,
      Duration measure,
      int windows,
      Runnable beforeWindow,
      List<FaultScheduler> faults,
      PrintWriter progress,
      boolean terminal)
      throws Exception {
    if (windows < 1 || (windows > 1 && !faults.isEmpty())) {
      throw new IllegalArgumentException(
          "faults need one continuous window, got " + windows + " windows");
    }
    LoadGenerator load = newLoad(plan);
    running = load;
    if (stopped) {
      load.stop();
    }
    if (!warmup.isZero()) {
      Blocking.await(load.run(warmup), warmup.plus(WAIT), "the warm-up");
    }
    Duration window = measure.dividedBy(windows);
    boolean sameHostExpected = sameHostRequired || RailBytes.hasSameHostRail(engine);
    RailBytes rails = new RailBytes(0, 0, sameHostExpected);
    boolean checkWrites = plan.verify() && plan.opcode() == TransferOpcode.WRITE;
    String writeMismatch = null;
    List<BenchResult> parts = new ArrayList<>();
    long allocated = 0;
    try (ProgressLine line =
        progress == null
            ? null
            : new ProgressLine(progress, terminal, load, EngineWatch.of(engine, faults))) {
      if (line != null) {
        faults.forEach(f -> f.onStep(line::fault));
      }
      for (int w = 0; w < windows && (w == 0 || !load.stopped()); w++) {
        beforeWindow.run();
        if (checkWrites) {
          // a pattern no earlier run wrote: the read-back proves this window wrote every block
          DataPattern.fill(localMemory, plan.region(), DataPattern.SOURCE_SEED + ++writeRounds);
        }
        if (w == 0) {
          // fault times count from the first slice posted, not from before a slow fill
          faults.forEach(FaultScheduler::start);
        }
        long allocBefore = Blocking.allocatedBytes();
        RailBytes railsBefore = RailBytes.of(engine, sameHostExpected);
        parts.add(Blocking.await(load.run(window), window.plus(WAIT), "the measured run"));
        rails = rails.plus(RailBytes.of(engine, sameHostExpected).since(railsBefore));
        allocated =
            allocBefore < 0 || allocated < 0
                ? -1
                : allocated + Blocking.allocatedBytes() - allocBefore;
        if (checkWrites && writeMismatch == null) {
          String mismatch = readBackMismatch(plan.region());
          if (mismatch != null) {
            writeMismatch = "window " + (w + 1) + " of " + windows + ": " + mismatch;
          }
        }
      }
    } finally {
      faults.forEach(FaultScheduler::close);
    }
    BenchResult r = LoadGenerator.combine(plan, parts, true);
    List<String> faultLog = new ArrayList<>();
    faults.forEach(f -> faultLog.addAll(f.log()));
    Boolean verified = r.verified();
    String detail = r.verifyDetail();
    if (checkWrites) {
      detail = writeMismatch == null ? restoreSourcePattern(plan.region()) : writeMismatch;
      verified = detail == null;
    }
    return r.with(verified, detail, allocated, faultLog, measure.toNanos(), rails);
  }

  /**
   * Ends the measurement going on (or the next one) early: its load posts nothing more, the window
   * running ends once its batches in flight ended, later windows are skipped, and {@link #measure}
   * returns what was measured, verified as usual. Callable from any thread (a signal handler).
   */
  public void stop() {
    stopped = true;
    LoadGenerator load = running;
    if (load != null) {
      load.stop();
    }
  }

  /**
   * @return true once {@link #stop()} was called
   */
  public boolean stopped() {
    return stopped;
  }

  /**
   * @param plan a load over this session's buffers
   * @return a generator of it, not started
   */
  LoadGenerator newLoad(LoadGenerator.Plan plan) {
    LoadGenerator load = new LoadGenerator(vertx, engine, local, segment, remoteBase, plan);
    load.checkIntegrity(integrity);
    return load;
  }

  /**
   * Sets the end-to-end check of the batches of the measurements from now on.
   *
   * @param integrity the check, or null for the engine's option
   */
  public void checkIntegrity(Integrity integrity) {
    this.integrity = integrity;
  }

  /**
   * Writes the plain source pattern over the remote region again (not measured), so that a READ run
   * on this target afterwards finds the pattern an initiator's WRITE leaves, as before the windows
   * wrote their own.
   *
   * @return null, or why the target could not be restored
   */
  private String restoreSourcePattern(long bytes) throws Exception {
    DataPattern.fill(localMemory, bytes, DataPattern.SOURCE_SEED);
    List<TransferRequest> writes = new ArrayList<>();
    for (long off = 0; off < bytes; off += READ_BACK_CHUNK) {
      writes.add(
          TransferRequest.write(
              local, off, segment, remoteBase + off, Math.min(READ_BACK_CHUNK, bytes - off)));
    }
    io.vte.api.BatchResult done =
        Blocking.await(
            engine.submit(writes, new TransferOptions().setDeadline(WAIT)).result(),
            WAIT.plusSeconds(5),
            "restoring the target's source pattern");
    return done.allCompleted()
        ? null
        : "restoring the target's source pattern after the run failed: " + done.requests();
  }

  /** Reads the remote region back into fresh memory and compares it with the local source. */
  private String readBackMismatch(long bytes) throws Exception {
    long scratch = DirectMemory.allocate(bytes);
    try {
      RegisteredBuffer sink =
          Blocking.await(engine.register(scratch, bytes, "cpu:0"), WAIT, "registering memory");
      try {
        List<TransferRequest> reads = new ArrayList<>();
        for (long off = 0; off < bytes; off += READ_BACK_CHUNK) {
          reads.add(
              TransferRequest.read(
                  sink, off, segment, remoteBase + off, Math.min(READ_BACK_CHUNK, bytes - off)));
        }
        Future<io.vte.api.BatchResult> done =
            engine.submit(reads, new TransferOptions().setDeadline(WAIT)).result();
        io.vte.api.BatchResult back =
            Blocking.await(done, WAIT.plusSeconds(5), "reading the target back");
        if (!back.allCompleted()) {
          return "reading the target back failed: " + back.requests();
        }
        long at =
            DirectMemory.wrap(scratch, Math.toIntExact(bytes))
                .mismatch(DirectMemory.wrap(localMemory, Math.toIntExact(bytes)));
        return at < 0 ? null : "the target differs from what was written at offset " + at;
      } finally {
        Blocking.await(engine.unregister(sink), WAIT, "unregistering memory");
      }
    } finally {
      DirectMemory.free(scratch);
    }
  }

  /**
   * @return bytes the session covers
   */
  public long region() {
    return region;
  }

  /** Unregisters and frees the local buffer (the engine itself belongs to the caller). */
  @Override
  public void close() {
    try {
      Blocking.awaitClosed(engine.unregister(local), WAIT, "unregistering memory");
    } finally {
      DirectMemory.free(localMemory);
    }
  }
}
