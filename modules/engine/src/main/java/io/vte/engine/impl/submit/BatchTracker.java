package io.vte.engine.impl.submit;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.TaskState;
import io.vte.api.TaskStatus;
import io.vte.api.TransferBatch;
import io.vte.api.VteException;
import io.vte.engine.VertxInternals;
import io.vte.engine.impl.metrics.EngineCounters;
import io.vte.engine.impl.rail.Slice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Consumer;

/**
 * A submitted batch: its requests' trackers, its deadline timer and its result, completed once
 * every request is settled (on the submitter's context: inline when the last request settles on
 * that context's thread, else with one task to it). A batch submitted from a thread outside Vert.x
 * has no context of its own to return to: when its last request settles on a slice's success, its
 * result completes right there, on the owner's thread, saving the wake-up of another event loop
 * before the caller's own. Cancel, deadline and engine close settle the unfinished requests at
 * once; their queued slices are then dropped unposted by the owners.
 */
public final class BatchTracker implements TransferBatch {

  private static final AtomicIntegerFieldUpdater<BatchTracker> UNSETTLED =
      AtomicIntegerFieldUpdater.newUpdater(BatchTracker.class, "unsettled");

  @SuppressWarnings("rawtypes")
  private static final AtomicReferenceFieldUpdater<BatchTracker, Promise> ACCEPTED =
      AtomicReferenceFieldUpdater.newUpdater(BatchTracker.class, Promise.class, "accepted");

  private final Consumer<BatchTracker> onDone;

  /** The records this batch belongs to when they run again, null for records of one run. */
  private final ReusedRecords keeper;

  /** Counts the runs of reused records: a caller's handle cancels only its own run. */
  private int generation;

  private final CallerContexts callers;

  // Set anew at each run of reused records.
  private Context context;

  /** The submitter (or poster) ran outside Vert.x: its result may complete on any thread. */
  private boolean callerOutsideVertx;

  private Promise<BatchResult> promise;

  /** The slices of this run check their bytes end to end. */
  private boolean integrity;

  private volatile int unsettled;
  private volatile TransferTracker[] trackers;
  private volatile RequestStatus endedEarly;
  private volatile VteException endedEarlyCause;
  private volatile long deadlineNanos;
  private volatile long deadlineMillis = -1;
  private volatile VteException rejected;

  // The links of InFlightBatches, guarded by the stripe's lock.
  volatile InFlightBatches.Stripe inFlightStripe;
  BatchTracker inFlightPrev;
  BatchTracker inFlightNext;

  /** The result, set before the promise is completed with it. */
  private BatchResult settledResult;

  /** Reused records' result when all their requests completed, kept for the next such run. */
  private BatchResult allCompleted;

  /** Made on the first call of {@link #accepted()} only: most batches are never asked. */
  private volatile Promise<Void> accepted;

  /**
   * Sets whether the slices of this run check their bytes end to end (the batch's integrity); set
   * when the run is admitted, before its slices are cut.
   */
  void checkIntegrity(boolean check) {
    integrity = check;
  }

  /**
   * @return true when the slices of this run check their bytes end to end
   */
  boolean checksIntegrity() {
    return integrity;
  }

  BatchTracker(CallerContexts callers, Consumer<BatchTracker> onDone) {
    this(callers, onDone, null);
  }

  /**
   * @param keeper who runs these records again, null for records of one run
   */
  BatchTracker(CallerContexts callers, Consumer<BatchTracker> onDone, ReusedRecords keeper) {
    this.onDone = onDone;
    this.keeper = keeper;
    this.callers = callers;
    this.context = callers.current();
    this.callerOutsideVertx = callers.isOutsideVertx(context);
    this.promise = Promise.promise();
  }

  /**
   * Makes reused records ready for a new run: a fresh result on the poster's context, nothing ended
   * or settled, the next generation. Only once the previous run released them ({@link
   * ReusedRecords#release}), before the new run is in flight.
   *
   * @param poster the context of the post's caller, where its result completes (called on the
   *     poster's thread)
   */
  void reuse(Context poster) {
    generation++;
    context = poster;
    callerOutsideVertx = callers.isOutsideVertx(poster);
    promise = Promise.promise();
    trackers = null;
    endedEarly = null;
    endedEarlyCause = null;
    rejected = null;
    accepted = null;
    settledResult = null;
  }

  @Override
  public Future<BatchResult> result() {
    return promise.future();
  }

  /**
   * @return completes once the batch passed validation and its slices were routed; fails as the
   *     result does
   */
  Future<Void> accepted() {
    Promise<Void> p = accepted;
    if (p == null) {
      ACCEPTED.compareAndSet(this, null, Promise.promise());
      p = accepted;
    }
    // start() and reject() write their state before they read the field, this reads it after
    // writing the field: one of the two sides settles the promise
    settleAccepted(p);
    return p.future();
  }

  private void settleAccepted(Promise<Void> p) {
    if (p == null) {
      return;
    }
    VteException failure = rejected;
    if (failure != null) {
      p.tryFail(failure);
    } else if (trackers != null) {
      p.tryComplete();
    }
  }

  /**
   * {@inheritDoc}
   *
   * <p>Acts only while the batch is in flight, under the lock of its in-flight list, as the
   * deadline sweep and engine close do: an end never runs while reused records are made ready for
   * their next run.
   */
  @Override
  public void cancel() {
    InFlightBatches.Stripe s = inFlightStripe;
    if (s != null) {
      s.whileLinked(this, CANCEL);
    }
  }

  /**
   * @return the run of reused records now under way (a handle names it to cancel only its own)
   */
  int generation() {
    return generation;
  }

  /**
   * Cancels run {@code generation} of reused records, if it is the one in flight (a handle of an
   * ended run may outlive it while the records run again): checked under the in-flight lock, which
   * a run is admitted under after its generation was set.
   *
   * @param generation the run the caller's handle belongs to
   */
  void cancel(int generation) {
    InFlightBatches.Stripe s = inFlightStripe;
    if (s != null) {
      s.whileLinked(
          this,
          b -> {
            if (b.generation == generation) {
              CANCEL.accept(b);
            }
          });
    }
  }

  private static final Consumer<BatchTracker> CANCEL =
      b ->
          b.end(
              RequestStatus.CANCELED,
              new VteException(ErrorCode.CANCELED, "batch canceled by the caller"));

  /** Settles every unfinished request with TIMED_OUT. */
  private void expire(long deadlineMillis) {
    end(
        RequestStatus.TIMED_OUT,
        new VteException(
            ErrorCode.TIMED_OUT, "batch deadline of " + deadlineMillis + " ms passed"));
  }

  /**
   * Counts the settled batch's requests into the engine's counters: each request's opcode, the code
   * of each failure, and the batch's time from admission as each request's latency; a batch
   * rejected up front counts its one cause.
   *
   * @param counters the engine's counters
   */
  void countInto(EngineCounters counters) {
    VteException refused = rejected;
    if (refused != null) {
      counters.requestFailed(refused.code());
      return;
    }
    TransferTracker[] all = trackers;
    long nanos = System.nanoTime() - admittedNanos;
    for (TransferTracker t : all) {
      RequestResult r = t.result();
      counters.requestEnded(
          t.request().opcode(), nanos, r.cause() == null ? null : r.cause().code());
    }
  }

  /** Settles every unfinished request with FAILED / ENGINE_CLOSED. */
  void engineClosed() {
    end(
        RequestStatus.FAILED,
        new VteException(ErrorCode.ENGINE_CLOSED, "engine closed with the request in flight"));
  }

  /** {@link System#nanoTime()} when the batch was admitted ({@link #armDeadline}). */
  private long admittedNanos;

  /** Starts the deadline: {@link #expireIfDue} expires the batch once it passed. */
  void armDeadline(long deadlineMillis) {
    admittedNanos = System.nanoTime();
    this.deadlineNanos = admittedNanos + Math.max(1, deadlineMillis) * 1_000_000L;
    this.deadlineMillis = deadlineMillis;
  }

  /**
   * Expires the batch, once, when its deadline passed.
   *
   * @param nowNanos {@link System#nanoTime()}
   */
  void expireIfDue(long nowNanos) {
    long ms = deadlineMillis;
    if (ms >= 0 && nowNanos - deadlineNanos >= 0 && endedEarly == null) {
      expire(ms);
    }
  }

  /**
   * Fails the whole batch before anything was sent (bad input, closed engine).
   *
   * @param cause the typed cause
   */
  void reject(VteException cause) {
    rejected = cause;
    settleAccepted(accepted);
    Promise<BatchResult> p = promise;
    context.runOnContext(v -> p.tryFail(cause));
    onDone.accept(this);
  }

  /**
   * Starts the validated requests: cuts them into slices with rails, appended to {@code out}.
   *
   * @param all the trackers, in request order
   * @param out receives the slices to route (nothing when the batch already ended)
   */
  void start(TransferTracker[] all, List<Slice> out) {
    unsettled = all.length;
    trackers = all;
    settleAccepted(accepted);
    RequestStatus early = endedEarly;
    for (TransferTracker t : all) {
      if (early != null) {
        t.settle(early, endedEarlyCause);
      } else {
        t.start(out);
      }
    }
  }

  /**
   * Counts one request settled; the last completes the batch.
   *
   * @param inlineAllowed the caller is an owner reporting a slice's success: on the submitter's
   *     thread, or on any thread for a submitter outside Vert.x, the result may complete at once,
   *     without a task hop
   */
  void requestSettled(boolean inlineAllowed) {
    if (UNSETTLED.decrementAndGet(this) == 0) {
      TransferTracker[] all = trackers;
      settledResult = resultOf(all);
      onDone.accept(this);
      if (inlineAllowed && callerOutsideVertx) {
        complete();
      } else if (inlineAllowed && VertxInternals.inThread(context)) {
        VertxInternals.dispatch(context, this, COMPLETE);
      } else {
        VertxInternals.execute(context, completeOnContext);
      }
    }
  }

  /**
   * @return the batch's result; for reused records whose requests all completed, the same one at
   *     every such run with the same results (they are too, and all are immutable)
   */
  private BatchResult resultOf(TransferTracker[] all) {
    BatchResult cached = allCompleted;
    if (cached != null && sameResults(cached.requests(), all)) {
      return cached;
    }
    List<RequestResult> results;
    if (all.length == 1) {
      results = List.of(all[0].result());
    } else {
      results = new ArrayList<>(all.length);
      for (TransferTracker t : all) {
        results.add(t.result());
      }
    }
    BatchResult r = new BatchResult(results);
    if (keeper != null && r.allCompleted()) {
      allCompleted = r;
    }
    return r;
  }

  private static boolean sameResults(List<RequestResult> results, TransferTracker[] all) {
    for (int i = 0; i < all.length; i++) {
      if (results.get(i) != all[i].result()) {
        return false;
      }
    }
    return true;
  }

  /**
   * @return true when every request completed on its own records (none cancelled, timed out, failed
   *     or redirected): no slice of the batch is held anywhere, so its keeper may run these records
   *     again. Asked once the batch left its in-flight list, whose lock an end (cancel, deadline,
   *     close) holds while it runs: an end that ran shows in {@code endedEarly}.
   */
  private boolean reusable() {
    if (endedEarly != null) {
      return false;
    }
    for (TransferTracker t : trackers) {
      if (!t.completedOnItsOwn()) {
        return false;
      }
    }
    return true;
  }

  /** Completes a batch with its settled result; one handler for all, so nothing is allocated. */
  private static final Handler<BatchTracker> COMPLETE = BatchTracker::complete;

  /**
   * The task that completes the result from another thread, as {@code runOnContext} would, made
   * once per tracker: reused records allocate no task per run.
   */
  private final Runnable completeOnContext = () -> VertxInternals.dispatch(context, this, COMPLETE);

  /**
   * Completes the result (on the submitter's context). Reused records are given back first, so that
   * a callback that posts again reuses them; what this needs is read before.
   */
  private void complete() {
    BatchResult result = settledResult;
    Promise<BatchResult> p = promise;
    if (keeper != null) {
      keeper.release(reusable());
    }
    p.tryComplete(result);
  }

  /**
   * @param index request index
   * @return its status for the batch-id API
   */
  TaskStatus status(int index) {
    VteException failure = rejected;
    if (failure != null) {
      return new TaskStatus(TaskState.FAILED, 0, failure);
    }
    TransferTracker[] all = trackers;
    if (all == null) {
      return new TaskStatus(TaskState.PENDING, 0, null);
    }
    RequestResult r = all[index].result();
    if (r == null) {
      return new TaskStatus(TaskState.PENDING, all[index].bytes(), null);
    }
    return new TaskStatus(TaskState.valueOf(r.status().name()), r.bytes(), r.cause());
  }

  private void end(RequestStatus status, VteException cause) {
    if (endedEarly == null) {
      endedEarlyCause = cause;
      endedEarly = status;
    }
    TransferTracker[] all = trackers;
    if (all != null) {
      for (TransferTracker t : all) {
        t.settle(status, cause);
      }
    }
  }
}
