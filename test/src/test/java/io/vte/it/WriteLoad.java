package io.vte.it;

import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RegisteredBuffer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Continuous WRITEs of {@code chunk} bytes from slot {@code s} of a local buffer to slot {@code s}
 * of a remote buffer, {@code slots} requests in flight; each write carries a fresh pattern, so at
 * the end the remote slots must equal the local ones byte for byte. With {@link
 * #checkEveryWrite(RemoteCrc)}, each completed write's remote slot is read (its CRC32C, from the
 * receiver's {@link CrcServer}) before the slot is written again, so a write lost during a fault is
 * seen although the next one would mask it ({@link Result#lostWrites()}), and at the end every slot
 * is read once more, so an older write that landed after its slot's last check (a stale copy of a
 * retried write) is seen too. Faults run on their own thread at fixed offsets from the start.
 */
public final class WriteLoad {

  /** What a fault does, run off the event loops. */
  @FunctionalInterface
  public interface Action {
    /**
     * @throws Exception fails the load run
     */
    void run() throws Exception;
  }

  /**
   * A fault at an offset from the start of the run.
   *
   * @param at offset from the start
   * @param name what it is, for reports
   * @param action what it does
   */
  public record Fault(Duration at, String name, Action action) {}

  private final TransferEngine engine;
  private final RegisteredBuffer local;
  private final SegmentHandle segment;
  private final long remoteAddress;
  private final int slots;
  private final int chunk;
  private final Duration requestDeadline;
  private final long[] writeNumber;
  private final long[] expectedCrc;
  private RemoteCrc receiver;
  private long truncated = -1;
  private long seed = 1;

  /** Reads the receiver's memory. */
  @FunctionalInterface
  public interface RemoteCrc {
    /**
     * @param address a remote address
     * @param length bytes
     * @return CRC32C of the receiver's memory there, now
     * @throws Exception when the receiver cannot be asked; fails the load run
     */
    long crc(long address, int length) throws Exception;
  }

  /**
   * @param engine the sending engine
   * @param local registered local memory of at least slots x chunk bytes
   * @param segment the receiver's segment
   * @param remoteAddress start of slots x chunk bytes in the segment
   * @param slots requests in flight
   * @param chunk bytes per request
   * @param requestDeadline the per-batch deadline
   */
  public WriteLoad(
      TransferEngine engine,
      RegisteredBuffer local,
      SegmentHandle segment,
      long remoteAddress,
      int slots,
      int chunk,
      Duration requestDeadline) {
    this.engine = engine;
    this.local = local;
    this.segment = segment;
    this.remoteAddress = remoteAddress;
    this.slots = slots;
    this.chunk = chunk;
    this.requestDeadline = requestDeadline;
    this.writeNumber = new long[slots];
    this.expectedCrc = new long[slots];
  }

  /**
   * Checks every completed write in the receiver from now on; each slot waits for its check before
   * its next write.
   *
   * @param receiver reads the receiver's memory
   * @return this
   */
  public WriteLoad checkEveryWrite(RemoteCrc receiver) {
    this.receiver = receiver;
    return this;
  }

  /**
   * Fault injection for the check's own test: write {@code number} (the seed of its pattern) is
   * posted with only the first half of its bytes while the load expects all of them, as when an
   * engine completes a write that partly never landed.
   *
   * @param number the write to cut short
   * @return this
   */
  WriteLoad truncateWrite(long number) {
    this.truncated = number;
    return this;
  }

  /**
   * Runs the load for a duration, then waits for every request in flight.
   *
   * @param duration how long new requests are submitted
   * @param faults faults to inject during the run
   * @return what happened
   * @throws Exception when a fault action fails or a request never ends (a hang)
   */
  public Result run(Duration duration, List<Fault> faults) throws Exception {
    Result result = new Result(System.nanoTime());
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "fault-injector"));
    try {
      List<ScheduledFuture<?>> scheduled = new ArrayList<>();
      for (Fault f : faults) {
        scheduled.add(
            scheduler.schedule(
                () -> {
                  f.action().run();
                  result.faultTimes.put(f.name(), System.nanoTime());
                  result.faults.add(f.name(), "");
                  return null;
                },
                f.at().toNanos(),
                TimeUnit.NANOSECONDS));
      }
      long end = result.start + duration.toNanos();
      @SuppressWarnings({"unchecked", "rawtypes"}) // a generic array is made raw
      Future<BatchResult>[] inflight = new Future[slots];
      long[] submitted = new long[slots];
      long[] completed = new long[slots];
      boolean[] checkedOk = new boolean[slots];
      // Slots are taken in the order their writes end: a slot that ended is written again at once,
      // not after the slots before it (requests spread over rails end out of order).
      BlockingQueue<Integer> ended = new LinkedBlockingQueue<>();
      for (int s = 0; s < slots; s++) {
        submit(s, inflight, submitted, completed, ended);
      }
      long hangLimit = requestDeadline.toNanos() + TimeUnit.SECONDS.toNanos(30);
      for (int live = slots; live > 0; ) {
        Integer next = ended.poll(hangLimit, TimeUnit.NANOSECONDS);
        if (next == null) {
          throw new AssertionError(
              "no write ended within a deadline + 30 s while "
                  + live
                  + " were in flight: the engine hangs");
        }
        int s = next;
        result.account(inflight[s], completed[s] - submitted[s], completed[s]);
        result.lastOk[s] = inflight[s].succeeded() && inflight[s].result().allCompleted();
        checkedOk[s] = false;
        if (receiver != null && result.lastOk[s]) {
          checkedOk[s] =
              result.checks.record(
                  s,
                  writeNumber[s],
                  expectedCrc[s],
                  receiver.crc(remoteAddress + (long) s * chunk, chunk),
                  submitted[s],
                  completed[s]);
        }
        if (System.nanoTime() < end) {
          submit(s, inflight, submitted, completed, ended);
        } else {
          inflight[s] = null;
          live--;
        }
      }
      if (receiver != null) {
        for (int s = 0; s < slots; s++) {
          if (checkedOk[s]) {
            result.checks.recheck(
                s,
                writeNumber[s],
                expectedCrc[s],
                receiver.crc(remoteAddress + (long) s * chunk, chunk));
          }
        }
      }
      for (ScheduledFuture<?> f : scheduled) {
        if (f.isDone()) {
          f.get();
        }
      }
      result.end = System.nanoTime();
      return result;
    } finally {
      scheduler.shutdownNow();
      scheduler.awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  private void submit(
      int s,
      Future<BatchResult>[] inflight,
      long[] submitted,
      long[] completed,
      BlockingQueue<Integer> ended) {
    long offset = (long) s * chunk;
    writeNumber[s] = seed++;
    Pattern.fill(local.address() + offset, chunk, writeNumber[s]);
    if (receiver != null) {
      expectedCrc[s] = Pattern.crc(local.address() + offset, chunk);
    }
    int length = writeNumber[s] == truncated ? chunk / 2 : chunk;
    submitted[s] = System.nanoTime();
    inflight[s] =
        engine
            .submit(
                List.of(
                    TransferRequest.write(local, offset, segment, remoteAddress + offset, length)),
                new TransferOptions().setDeadline(requestDeadline))
            .result();
    inflight[s].onComplete(
        ar -> {
          completed[s] = System.nanoTime();
          ended.add(s);
        });
  }

  /**
   * @return CRC32C of the local slots, which the remote slots must equal after a clean run
   */
  public long localCrc() {
    return Pattern.crc(local.address(), slots * chunk);
  }

  /** What one run did. */
  public final class Result implements CheckedWrites {
    final long start;
    long end;
    long transfers;
    long maxLatencyNanos;
    final List<Long> latencies = new ArrayList<>();
    final boolean[] lastOk = new boolean[slots];
    final Map<String, Long> faultTimes = new ConcurrentHashMap<>();
    final FaultLog faults;
    final FailureTally failed;
    final WriteChecks checks;
    final Completions completions = new Completions(chunk);

    Result(long start) {
      this.start = start;
      this.faults = new FaultLog(start);
      this.failed = new FailureTally(faults);
      this.checks = new WriteChecks(faults);
    }

    void account(Future<BatchResult> f, long latency, long completedAt) {
      transfers++;
      maxLatencyNanos = Math.max(maxLatencyNanos, latency);
      latencies.add(latency);
      RequestResult r = f.succeeded() ? f.result().requests().get(0) : null;
      if (r != null && r.status() == RequestStatus.COMPLETED) {
        completions.add(completedAt);
        return;
      }
      failed.record(
          r != null ? r.cause() : f.cause(),
          r != null ? r.status().name() : "batch failed",
          completedAt - latency,
          completedAt);
    }

    /**
     * @return what a node process reports of a run it made ({@link RemoteLoad} reads it): every
     *     figure, the completion and fault times relative to the start of the run
     */
    public JsonObject toJson() {
      JsonObject causes = new JsonObject();
      failed.causes().forEach((code, n) -> causes.put(code.name(), n));
      JsonObject faultsAt = new JsonObject();
      faultTimes.forEach((name, t) -> faultsAt.put(name, t - start));
      return new JsonObject()
          .put("transfers", transfers)
          .put("failures", failures())
          .put("untyped", untyped())
          .put("causes", causes)
          .put("maxLatencyNanos", maxLatencyNanos)
          .put("latencyP50Nanos", latencyPercentile(0.50))
          .put("latencyP99Nanos", latencyPercentile(0.99))
          .put("lastWritesCompleted", lastWritesCompleted())
          .put("verifiedWrites", verifiedWrites())
          .put("lostWrites", lostWrites())
          .put("lostDetails", lostDetails())
          .put("startNanos", start)
          .put("durationNanos", end - start)
          .put("faultTimes", faultsAt)
          .put("completions", completions.toJson(start))
          .put("chunk", chunk)
          .put("failureSummary", failureSummary())
          .put("failureDetails", failureDetails())
          .put("firstFailure", firstFailure());
    }

    /**
     * @param p a fraction, 0.5 for the median
     * @return that percentile of the request latencies (every request, failed or not), 0 when none
     */
    public long latencyPercentile(double p) {
      if (latencies.isEmpty()) {
        return 0;
      }
      long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
      return sorted[Math.min(sorted.length - 1, (int) (sorted.length * p))];
    }

    @Override
    public long transfers() {
      return transfers;
    }

    @Override
    public long failures() {
      return failed.failures();
    }

    @Override
    public long verifiedWrites() {
      return checks.verified();
    }

    @Override
    public long lostWrites() {
      return checks.lost();
    }

    @Override
    public String lostDetails() {
      return checks.details();
    }

    /**
     * @return typed failures by error code
     */
    public Map<ErrorCode, Integer> causes() {
      return failed.causes();
    }

    /**
     * @param code an error code
     * @return the first failure with that code and the faults around it, or null
     */
    public String example(ErrorCode code) {
      return failed.example(code);
    }

    /**
     * @return failures without a {@link io.vte.api.VteException} code
     */
    public long untyped() {
      return failed.untyped();
    }

    /**
     * @return the first failure and the faults around it, for messages
     */
    public String firstFailure() {
      return failed.first();
    }

    /**
     * @return failures by cause and by fault in flight, one line for the summary
     */
    public String failureSummary() {
      return failed.summary();
    }

    /**
     * @return {@link #failureSummary()} plus the first failure of each cause with its faults
     */
    public String failureDetails() {
      return failed.details();
    }

    /**
     * @return the longest request latency
     */
    public long maxLatencyNanos() {
      return maxLatencyNanos;
    }

    /**
     * @return true when the last write of every slot completed, so the remote slots must match
     */
    public boolean lastWritesCompleted() {
      for (boolean ok : lastOk) {
        if (!ok) {
          return false;
        }
      }
      return true;
    }

    /**
     * @param name a fault's name
     * @return when it ran, System.nanoTime
     */
    public long faultTime(String name) {
      Long t = faultTimes.get(name);
      if (t == null) {
        throw new AssertionError("fault '" + name + "' never ran");
      }
      return t;
    }

    /**
     * @return when the first write completed, System.nanoTime, or -1 if none did
     */
    public long firstCompletion() {
      return completions.first();
    }

    /**
     * @return the end of the run, System.nanoTime
     */
    public long end() {
      return end;
    }

    /**
     * @return bytes per second completed over the whole run
     */
    public double throughput() {
      return throughput(start, end);
    }

    /**
     * @param from window start, System.nanoTime
     * @param to window end
     * @return bytes per second of the writes that completed in the window
     */
    public double throughput(long from, long to) {
      return completions.throughput(from, to);
    }

    /**
     * @param after the last fault, System.nanoTime
     * @param target bytes per second to reach
     * @param window the sliding window measured
     * @return nanoseconds from {@code after} to the end of the first window at or above target, or
     *     -1 if never
     */
    public long recoveryNanos(long after, double target, long window) {
      return completions.recoveryNanos(after, target, window, end);
    }
  }
}
