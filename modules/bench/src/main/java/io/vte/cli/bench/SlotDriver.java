package io.vte.cli.bench;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.Integrity;
import io.vte.api.PreparedTransfer;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.TransferEngine;
import io.vte.api.TransferOpcode;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.verbs.DirectMemory;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.HdrHistogram.Histogram;

/**
 * What one submitter of a {@link LoadGenerator} does with its slots, batches {@code thread * depth
 * .. thread * depth + depth - 1}: posts them and accounts for each result. Confined to the
 * submitter's thread (a verticle's event loop, or a caller thread); the counters are read by the
 * progress line.
 */
final class SlotDriver {
  /** Seed of the stamps WRITE blocks carry (mixed with the slot and a count). */
  private static final long STAMP_SEED = 0x57A4F5L;

  private final LoadGenerator.Plan plan;
  private final TransferEngine engine;
  private final long localAddress;
  private final List<List<TransferRequest>> batches;
  private final List<PreparedTransfer> prepared;
  private final BooleanSupplier stopped;
  private final int thread;
  private final long durationNanos;
  private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(120), 3);
  private final Map<String, Long> failures = new TreeMap<>();
  private final TransferOptions options;

  /** When each slot's batch went out. */
  private final long[] issuedAt;

  private volatile long ops;
  private volatile long failed;
  private volatile long succeeded;
  private long start;
  private long stamps;
  private long lastProgress;
  private long longestGap;
  private int inFlight;
  private String firstFailure;
  private String verifyDetail;

  /**
   * @param plan the load
   * @param engine the initiating engine
   * @param localAddress where the local registered buffer starts
   * @param batches every slot's requests
   * @param prepared every slot's prepared transfer, or null to submit the requests
   * @param stopped true once the runs are to end early
   * @param thread this submitter's number: its slots are {@code thread * depth ..}
   * @param durationNanos how long to keep posting
   * @param integrity the batches' end-to-end check, or null for the engine's option
   */
  SlotDriver(
      LoadGenerator.Plan plan,
      TransferEngine engine,
      long localAddress,
      List<List<TransferRequest>> batches,
      List<PreparedTransfer> prepared,
      BooleanSupplier stopped,
      int thread,
      long durationNanos,
      Integrity integrity) {
    this.options =
        new TransferOptions().setDeadline(LoadGenerator.DEADLINE).setIntegrity(integrity);
    this.plan = plan;
    this.engine = engine;
    this.localAddress = localAddress;
    this.batches = batches;
    this.prepared = prepared;
    this.stopped = stopped;
    this.thread = thread;
    this.durationNanos = durationNanos;
    this.issuedAt = new long[plan.depth()];
  }

  /**
   * @return requests finished so far (read from any thread)
   */
  long ops() {
    return ops;
  }

  /**
   * @return requests failed so far (read from any thread)
   */
  long failed() {
    return failed;
  }

  /**
   * @return requests succeeded so far (read from any thread)
   */
  long succeeded() {
    return succeeded;
  }

  void start() {
    start = System.nanoTime();
    lastProgress = start;
  }

  /**
   * Posts slot {@code local}'s batch (0 .. depth - 1).
   *
   * @return its result
   */
  Future<BatchResult> issue(int local) {
    int slot = thread * plan.depth() + local;
    if (plan.verify() && plan.opcode() == TransferOpcode.READ) {
      DirectMemory.fill(
          localAddress + slotOffset(slot), (long) plan.batchSize() * plan.blockSize(), (byte) 0);
    } else if (plan.verify()) {
      stamp(slot);
    }
    inFlight++;
    issuedAt[local] = System.nanoTime();
    return prepared != null
        ? prepared.get(slot).post()
        : engine.submit(batches.get(slot), options).result();
  }

  /**
   * Writes a value no earlier request of this submitter wrote over the first (up to 8) bytes of
   * each of the slot's source blocks: what a WRITE of it that did nothing would leave different.
   */
  private void stamp(int slot) {
    for (int i = 0; i < plan.batchSize(); i++) {
      long at = localAddress + slotOffset(slot) + (long) i * plan.blockSize();
      long value = DataPattern.mix(STAMP_SEED + slot, ++stamps);
      for (int b = 0; b < Math.min(8, plan.blockSize()); b++) {
        DirectMemory.putByte(at + b, (byte) (value >>> (8 * b)));
      }
    }
  }

  private long slotOffset(int slot) {
    return (long) slot * plan.batchSize() * plan.blockSize();
  }

  /**
   * Accounts for slot {@code local}'s ended batch.
   *
   * @return true when the run's time is not up: post the slot again
   */
  boolean completed(int local, BatchResult result, Throwable cause) {
    long now = System.nanoTime();
    int slot = thread * plan.depth() + local;
    inFlight--;
    latency.recordValue(Math.min(now - issuedAt[local], latency.getHighestTrackableValue()));
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
    return !stopped.getAsBoolean() && now - start < durationNanos;
  }

  /**
   * @return true when no batch is in flight
   */
  boolean drained() {
    return inFlight == 0;
  }

  /**
   * @return this submitter's result, once it has drained
   */
  BenchResult result() {
    long now = System.nanoTime();
    longestGap = Math.max(longestGap, now - lastProgress);
    return new BenchResult(
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
        -1,
        RailBytes.NONE);
  }

  private void check(long offset) {
    // The target holds its own pattern, or the source pattern where a WRITE run wrote before.
    long at =
        DataPattern.firstMismatch(
            localAddress + offset,
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
