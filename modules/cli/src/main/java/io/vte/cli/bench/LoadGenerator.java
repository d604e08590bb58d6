package io.vte.cli.bench;

import io.vertx.core.Completable;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.PreparedTransfer;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOpcode;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.verbs.DirectMemory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Keeps {@code depth} batches of {@code batchSize} requests in flight from each of {@code threads}
 * Vert.x contexts (one small verticle each) until a run's time is up. Request slot {@code k} always
 * covers bytes {@code [k * blockSize, (k + 1) * blockSize)} of both the local buffer and the remote
 * region, so the request lists are built once and reused. With {@code verify}, every READ block is
 * checked against the target's {@link DataPattern} (or the source pattern a WRITE run left there);
 * the slot is zeroed before each READ so a READ that moved nothing is caught. Counters are readable
 * from any thread for the progress line.
 */
public final class LoadGenerator {

  private static final Duration DEADLINE = Duration.ofSeconds(60);

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
   */
  public record Plan(
      TransferOpcode opcode,
      int blockSize,
      int batchSize,
      int depth,
      int threads,
      boolean verify,
      boolean prepared) {

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
  private final TransferEngine engine;
  private final Plan plan;
  private final List<List<TransferRequest>> batches = new ArrayList<>();
  private final RegisteredBuffer local;
  private volatile List<Driver> drivers = List.of();

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
   * Runs the load for a while.
   *
   * @param duration how long to keep issuing (in-flight batches are then waited for)
   * @return the result (allocation, verification and faults not yet filled in)
   */
  public Future<BenchResult> run(Duration duration) {
    if (!plan.prepared() || prepared != null) {
      return drive(duration);
    }
    TransferOptions options = new TransferOptions().setDeadline(DEADLINE);
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
    List<Driver> ds = new ArrayList<>();
    List<Future<BenchResult>> parts = new ArrayList<>();
    for (int t = 0; t < plan.threads(); t++) {
      Driver d = new Driver(t, duration.toNanos());
      ds.add(d);
      parts.add(
          vertx
              .deployVerticle(d)
              .compose(id -> d.done.future().eventually(() -> vertx.undeploy(id))));
    }
    drivers = List.copyOf(ds);
    return Future.all(parts).map(all -> combine(plan, all.list(), false));
  }

  /**
   * @return requests finished so far in the current run
   */
  public long ops() {
    long sum = 0;
    for (Driver d : drivers) {
      sum += d.ops;
    }
    return sum;
  }

  /**
   * @return requests failed so far in the current run
   */
  public long failed() {
    long sum = 0;
    for (Driver d : drivers) {
      sum += d.failed;
    }
    return sum;
  }

  /**
   * @return bytes completed so far in the current run; never less than an earlier call returned
   */
  public long bytes() {
    // one counter per driver: ops() - failed() read two that move apart while requests fail, and
    // a progress line showed a negative rate
    long sum = 0;
    for (Driver d : drivers) {
      sum += d.succeeded;
    }
    return sum * plan.blockSize();
  }

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
        -1);
  }

  /**
   * One submitting context: its slots are batches {@code thread * depth .. thread * depth + depth -
   * 1}.
   */
  private final class Driver extends VerticleBase {
    private final int thread;
    private final long durationNanos;
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
    private final Map<String, Long> failures = new TreeMap<>();
    private final TransferOptions options = new TransferOptions().setDeadline(DEADLINE);
    private final Promise<BenchResult> done = Promise.promise();

    /** When each slot's batch went out, and its completion handler, made once. */
    private final long[] issuedAt = new long[plan.depth()];

    private final List<Completable<BatchResult>> onDone = new ArrayList<>();
    private volatile long ops;
    private volatile long failed;
    private volatile long succeeded;
    private long start;
    private long lastProgress;
    private long longestGap;
    private int inFlight;
    private String firstFailure;
    private String verifyDetail;

    Driver(int thread, long durationNanos) {
      this.thread = thread;
      this.durationNanos = durationNanos;
      for (int s = 0; s < plan.depth(); s++) {
        int slot = thread * plan.depth() + s;
        int local = s;
        onDone.add((result, failure) -> completed(slot, issuedAt[local], result, failure));
      }
    }

    @Override
    public Future<?> start() {
      start = System.nanoTime();
      lastProgress = start;
      for (int s = 0; s < plan.depth(); s++) {
        issue(thread * plan.depth() + s);
      }
      return Future.succeededFuture();
    }

    private void issue(int slot) {
      if (plan.verify() && plan.opcode() == TransferOpcode.READ) {
        DirectMemory.fill(
            local.address() + slotOffset(slot),
            (long) plan.batchSize() * plan.blockSize(),
            (byte) 0);
      }
      inFlight++;
      int local = slot - thread * plan.depth();
      issuedAt[local] = System.nanoTime();
      List<PreparedTransfer> ps = prepared;
      Future<BatchResult> result =
          ps != null ? ps.get(slot).post() : engine.submit(batches.get(slot), options).result();
      result.onComplete(onDone.get(local));
    }

    private long slotOffset(int slot) {
      return (long) slot * plan.batchSize() * plan.blockSize();
    }

    private void completed(int slot, long t0, BatchResult result, Throwable cause) {
      long now = System.nanoTime();
      inFlight--;
      latency.recordValue(Math.min(now - t0, latency.getHighestTrackableValue()));
      long bad = 0;
      if (result == null) {
        bad = plan.batchSize();
        fail("batch/" + causeName(cause), plan.batchSize(), cause);
      } else {
        List<RequestResult> rs = result.requests();
        for (int i = 0; i < rs.size(); i++) {
          RequestResult r = rs.get(i);
          if (r.status() != RequestStatus.COMPLETED) {
            bad++;
            fail(r.status() + "/" + causeName(r.cause()), 1, r.cause());
          } else if (plan.verify() && plan.opcode() == TransferOpcode.READ) {
            check(slotOffset(slot) + (long) i * plan.blockSize());
          }
        }
      }
      failed += bad;
      succeeded += plan.batchSize() - bad;
      ops += plan.batchSize();
      if (bad < plan.batchSize()) {
        longestGap = Math.max(longestGap, now - lastProgress);
        lastProgress = now;
      }
      if (now - start < durationNanos) {
        issue(slot);
      } else if (inFlight == 0) {
        longestGap = Math.max(longestGap, now - lastProgress);
        done.complete(
            new BenchResult(
                plan.opcode(),
                plan.blockSize(),
                plan.batchSize(),
                plan.depth(),
                1,
                ops,
                failed,
                (ops - failed) * plan.blockSize(),
                now - start,
                latency,
                failures,
                firstFailure,
                verifyDetail == null ? null : Boolean.FALSE,
                verifyDetail,
                -1,
                List.of(),
                longestGap,
                -1));
      }
    }

    private void check(long offset) {
      // The target holds its own pattern, or the source pattern where a WRITE run wrote before.
      long at =
          DataPattern.firstMismatch(
              local.address() + offset,
              offset,
              plan.blockSize(),
              DataPattern.TARGET_SEED,
              DataPattern.SOURCE_SEED);
      if (at >= 0 && verifyDetail == null) {
        verifyDetail =
            "READ block at offset "
                + offset
                + " matches neither the target's nor the source pattern at byte "
                + at;
      }
    }

    private void fail(String key, long count, Throwable cause) {
      failures.merge(key, count, Long::sum);
      if (firstFailure == null) {
        firstFailure = String.valueOf(cause);
      }
    }

    private static String causeName(Throwable cause) {
      return cause instanceof VteException v
          ? v.code().name()
          : cause == null ? "NONE" : cause.getClass().getSimpleName();
    }
  }
}
