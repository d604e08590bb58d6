package io.vte.cli.bench;

import io.vertx.core.Completable;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.Integrity;
import io.vte.api.PreparedTransfer;
import io.vte.api.RegisteredBuffer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOpcode;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Keeps {@code depth} batches of {@code batchSize} requests in flight from each of {@code threads}
 * submitters until a run's time is up: Vert.x contexts (one small verticle each, posting again from
 * the result's callback), or plain Java threads outside Vert.x ({@link Plan#callerThreads()}: each
 * parks until its oldest batch's result has come, as a caller that awaits each result does).
 * Request slot {@code k} always covers bytes {@code [k * blockSize, (k + 1) * blockSize)} of both
 * the local buffer and the remote region, so the request lists are built once and reused. With
 * {@code verify}, every READ block is checked against the target's {@link DataPattern} (or the
 * source pattern a WRITE run left there); the slot is zeroed before each READ so a READ that moved
 * nothing is caught; each WRITE block gets a stamp no earlier request wrote in its first bytes, so
 * the read-back after a run ({@link InitiatorSession}) catches a slot whose last WRITE did nothing.
 * Counters are readable from any thread for the progress line.
 */
public final class LoadGenerator {

  /** Deadline of every request, and of preparing a slot's batch. */
  static final Duration DEADLINE = Duration.ofSeconds(60);

  /**
   * The shape of the load.
   *
   * @param opcode READ or WRITE
   * @param blockSize bytes per request
   * @param batchSize requests per batch
   * @param depth batches in flight per thread
   * @param threads submitting contexts
   * @param verify check every READ block
   * @param prepared post each slot's batch as a prepared transfer ({@link TransferEngine#prepare})
   *     instead of submitting it
   * @param callerThreads submit from plain Java threads outside Vert.x, each awaiting its oldest
   *     batch before it posts that slot again, instead of from verticles
   */
  public record Plan(
      TransferOpcode opcode,
      int blockSize,
      int batchSize,
      int depth,
      int threads,
      boolean verify,
      boolean prepared,
      boolean callerThreads) {

    /**
     * @return this plan with one batch of one request in flight from one submitter of the same kind
     */
    public Plan singleRequest() {
      return new Plan(opcode, blockSize, 1, 1, 1, verify, prepared, callerThreads);
    }

    /**
     * @param threads true for plain caller threads, false for verticles
     * @return this plan with that kind of submitter
     */
    public Plan withCallerThreads(boolean threads) {
      return new Plan(opcode, blockSize, batchSize, depth, this.threads, verify, prepared, threads);
    }

    /**
     * @return bytes covered by all request slots
     */
    public long region() {
      return (long) threads * depth * batchSize * blockSize;
    }

    /**
     * @return requests in flight at once
     */
    public int inFlight() {
      return threads * depth * batchSize;
    }
  }

  private final Vertx vertx;

  /** The batches' end-to-end check, or null for the engine's option. */
  private volatile Integrity integrity;

  private final TransferEngine engine;
  private final Plan plan;
  private final List<List<TransferRequest>> batches = new ArrayList<>();
  private final RegisteredBuffer local;
  private volatile Runs runs = new Runs(List.of(), new Counts(0, 0, 0));

  /** Set by {@link #stop()}: every run ends early (posts nothing more and drains). */
  private volatile boolean stopped;

  /** Each slot's batch, prepared at the first run of a plan that asks for it. */
  private volatile List<PreparedTransfer> prepared;

  /**
   * @param vertx where the submitting contexts run
   * @param engine the initiating engine
   * @param local the local registered buffer, at least {@link Plan#region()} bytes
   * @param segment the target's segment
   * @param remoteBase where the remote region starts (at least {@link Plan#region()} bytes)
   * @param plan the load
   */
  public LoadGenerator(
      Vertx vertx,
      TransferEngine engine,
      RegisteredBuffer local,
      SegmentHandle segment,
      long remoteBase,
      Plan plan) {
    this.vertx = vertx;
    this.engine = engine;
    this.plan = plan;
    this.local = local;
    int slots = plan.threads() * plan.depth();
    for (int b = 0; b < slots; b++) {
      List<TransferRequest> batch = new ArrayList<>(plan.batchSize());
      for (int i = 0; i < plan.batchSize(); i++) {
        long offset = ((long) b * plan.batchSize() + i) * plan.blockSize();
        batch.add(
            new TransferRequest(
                plan.opcode(), local, offset, segment, remoteBase + offset, plan.blockSize()));
      }
      batches.add(List.copyOf(batch));
    }
  }

  /**
   * Sets the end-to-end check of the batches of the runs from now on (prepared batches keep the one
   * they were prepared with).
   *
   * @param integrity the check, or null for the engine's option
   */
  public void checkIntegrity(Integrity integrity) {
    this.integrity = integrity;
  }

  /**
   * Runs the load for a while.
   *
   * @param duration how long to keep issuing (in-flight batches are then waited for)
   * @return the result (allocation, verification and faults not yet filled in)
   */
  public Future<BenchResult> run(Duration duration) {
    if (!plan.prepared() || prepared != null) {
      return drive(duration);
    }
    TransferOptions options = new TransferOptions().setDeadline(DEADLINE).setIntegrity(integrity);
    List<Future<PreparedTransfer>> all = new ArrayList<>();
    for (List<TransferRequest> batch : batches) {
      all.add(engine.prepare(batch, options));
    }
    return Future.all(all)
        .compose(
            done -> {
              prepared = done.list();
              return drive(duration);
            });
  }

  private Future<BenchResult> drive(Duration duration) {
    List<SlotDriver> ds = new ArrayList<>();
    List<Future<BenchResult>> parts = new ArrayList<>();
    for (int t = 0; t < plan.threads(); t++) {
      SlotDriver d =
          new SlotDriver(
              plan,
              engine,
              local.address(),
              batches,
              prepared,
              this::stopped,
              t,
              duration.toNanos(),
              integrity);
      ds.add(d);
      if (plan.callerThreads()) {
        CallerThread caller = new CallerThread(d);
        parts.add(caller.done.future());
        Thread thread = new Thread(caller, "vte-bench-caller-" + t);
        thread.setDaemon(true);
        thread.start();
      } else {
        DriverVerticle v = new DriverVerticle(d);
        parts.add(
            vertx
                .deployVerticle(v)
                .compose(id -> v.done.future().eventually(() -> vertx.undeploy(id))));
      }
    }
    runs = new Runs(List.copyOf(ds), counts());
    return Future.all(parts).map(all -> combine(plan, all.list(), false));
  }

  /**
   * Ends the current run and every later one early: the drivers post nothing more, and each run's
   * result completes once its batches in flight ended. Callable from any thread (a signal handler).
   */
  public void stop() {
    stopped = true;
  }

  /**
   * @return true once {@link #stop()} was called
   */
  public boolean stopped() {
    return stopped;
  }

  /**
   * @return requests finished so far by every run of this generator (the warm-up's too)
   */
  public long ops() {
    return counts().ops();
  }

  /**
   * @return requests failed so far by every run of this generator
   */
  public long failed() {
    return counts().failed();
  }

  /**
   * @return bytes completed so far by every run of this generator; never less than an earlier call
   *     returned, across runs too
   */
  public long bytes() {
    // one counter per driver: ops() - failed() read two that move apart while requests fail, and
    // a progress line showed a negative rate
    return counts().succeeded() * plan.blockSize();
  }

  /**
   * @return the counts of the runs that ended plus the current run's so far
   */
  private Counts counts() {
    Runs r = runs;
    long ops = r.ended().ops();
    long failed = r.ended().failed();
    long succeeded = r.ended().succeeded();
    for (SlotDriver d : r.current()) {
      ops += d.ops();
      failed += d.failed();
      succeeded += d.succeeded();
    }
    return new Counts(ops, failed, succeeded);
  }

  /** Requests finished, failed and succeeded. */
  private record Counts(long ops, long failed, long succeeded) {}

  /**
   * The drivers of the run going on and the counts of the runs that ended before it, replaced
   * together when a run starts, so that a reader never sees a run both counted and driving, nor
   * neither.
   */
  private record Runs(List<SlotDriver> current, Counts ended) {}

  /**
   * Adds results up.
   *
   * @param plan the load they ran
   * @param parts the results
   * @param sequential the parts ran one after the other (their times add up), else side by side
   * @return one result (allocation, verification of WRITEs and faults not filled in)
   */
  static BenchResult combine(Plan plan, List<BenchResult> parts, boolean sequential) {
    Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
    Map<String, Long> failures = new TreeMap<>();
    long ops = 0;
    long failed = 0;
    long bytes = 0;
    long nanos = 0;
    long gap = 0;
    String first = null;
    Boolean verified = plan.verify() && plan.opcode() == TransferOpcode.READ ? Boolean.TRUE : null;
    String detail = null;
    for (BenchResult p : parts) {
      latency.add(p.latency());
      p.failures().forEach((k, v) -> failures.merge(k, v, Long::sum));
      ops += p.ops();
      failed += p.failed();
      bytes += p.bytes();
      nanos = sequential ? nanos + p.nanos() : Math.max(nanos, p.nanos());
      gap = Math.max(gap, p.longestGapNanos());
      first = first == null ? p.firstFailure() : first;
      if (p.verified() == Boolean.FALSE) {
        verified = false;
        detail = detail == null ? p.verifyDetail() : detail;
      }
    }
    return new BenchResult(
        plan.opcode(),
        plan.blockSize(),
        plan.batchSize(),
        plan.depth(),
        plan.threads(),
        ops,
        failed,
        bytes,
        nanos,
        latency,
        failures,
        first,
        verified,
        detail,
        -1,
        List.of(),
        gap,
        -1,
        RailBytes.NONE);
  }

  /** A submitter on a Vert.x context: each result's callback posts its slot again. */
  private final class DriverVerticle extends VerticleBase {
    private final SlotDriver driver;
    private final Promise<BenchResult> done = Promise.promise();

    /** Each slot's completion handler, made once. */
    private final List<Completable<BatchResult>> onDone = new ArrayList<>();

    DriverVerticle(SlotDriver driver) {
      this.driver = driver;
      for (int s = 0; s < plan.depth(); s++) {
        int local = s;
        onDone.add((result, failure) -> completed(local, result, failure));
      }
    }

    @Override
    public Future<?> start() {
      driver.start();
      for (int s = 0; s < plan.depth(); s++) {
        driver.issue(s).onComplete(onDone.get(s));
      }
      return Future.succeededFuture();
    }

    private void completed(int local, BatchResult result, Throwable cause) {
      if (driver.completed(local, result, cause)) {
        driver.issue(local).onComplete(onDone.get(local));
      } else if (driver.drained()) {
        done.complete(driver.result());
      }
    }
  }

  /**
   * A submitter on a plain Java thread: it posts every slot, then parks until its oldest batch has
   * a result, accounts for it and posts that slot again. The result's callback runs where the batch
   * ended and only hands it over and unparks the thread.
   */
  private final class CallerThread implements Runnable {
    private final SlotDriver driver;
    private final Promise<BenchResult> done = Promise.promise();
    private final Ended[] ended = new Ended[plan.depth()];

    CallerThread(SlotDriver driver) {
      this.driver = driver;
    }

    @Override
    public void run() {
      try {
        Thread self = Thread.currentThread();
        for (int s = 0; s < plan.depth(); s++) {
          ended[s] = new Ended(self);
        }
        driver.start();
        for (int s = 0; s < plan.depth(); s++) {
          post(s);
        }
        for (int s = 0; !driver.drained(); s = (s + 1) % plan.depth()) {
          Ended e = ended[s];
          if (!e.awaited) {
            continue; // a slot the run no longer posts
          }
          e.await();
          if (driver.completed(s, e.result, e.cause)) {
            post(s);
          }
        }
        done.complete(driver.result());
      } catch (RuntimeException | Error e) {
        done.fail(e);
      }
    }

    private void post(int s) {
      Ended e = ended[s];
      e.reset();
      driver.issue(s).onComplete(e);
    }
  }

  /** One slot's result, handed from the callback to its caller thread. */
  private static final class Ended implements Completable<BatchResult> {
    private final Thread waiter;
    private volatile boolean arrived;
    private BatchResult result;
    private Throwable cause;

    /** The slot was posted and its result not yet taken. */
    private boolean awaited;

    Ended(Thread waiter) {
      this.waiter = waiter;
    }

    void reset() {
      arrived = false;
      result = null;
      cause = null;
      awaited = true;
    }

    @Override
    public void complete(BatchResult r, Throwable failure) {
      result = r;
      cause = failure;
      arrived = true;
      LockSupport.unpark(waiter);
    }

    /** Parks until the result arrived; fails once the request deadline and a margin have passed. */
    void await() {
      long giveUpAt = System.nanoTime() + DEADLINE.plusSeconds(30).toNanos();
      while (!arrived) {
        if (System.nanoTime() - giveUpAt > 0) {
          throw new IllegalStateException("no result within " + DEADLINE.plusSeconds(30));
        }
        LockSupport.parkNanos(this, TimeUnit.SECONDS.toNanos(1));
      }
      awaited = false;
    }
  }
}
