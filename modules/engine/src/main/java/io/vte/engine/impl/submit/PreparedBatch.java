package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.PreparedTransfer;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.engine.impl.rail.Slice;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A prepared transfer ({@link io.vte.api.TransferEngine#prepare}): its requests validated and
 * resolved once, and one set of records (a {@link BatchTracker}, its {@link TransferTracker}s and
 * their {@link Slice}s) posted again and again. A post claims the records; the post's completion
 * gives them back before the caller's callback runs, ready for the next post when every request
 * completed on its own slices. After a cancel, a deadline, a failure or a redirect a slice may
 * still be held by an owner, a pending retry or a replacement tracker, so those records are retired
 * (left to their stragglers) and the next post makes fresh ones. A post that finds the records
 * claimed runs as an ordinary submit of the same requests. Thread-safe.
 */
public final class PreparedBatch implements PreparedTransfer, RecordKeeper {

  private final TransferSubmitter submitter;
  private final List<TransferRequest> requests;
  private final TransferOptions options;
  private final long deadlineMillis;

  /** A post runs on the records; released by its completion. */
  private final AtomicBoolean claimed = new AtomicBoolean();

  /** Posts that ran as ordinary submits, in flight (for {@link #cancel()}). */
  private final Set<TransferBatch> overflow = ConcurrentHashMap.newKeySet();

  private final AtomicLong overflowPosts = new AtomicLong();

  /** The records' batch; read by {@link #cancel()} from any thread. */
  private volatile BatchTracker batch;

  // Guarded by the claim.
  private TransferTracker[] trackers;
  private boolean retired;
  private int recordsMade = 1;

  /**
   * Validates the requests into the first records (their remote ranges are resolved by the
   * submitter before the first post).
   *
   * @throws io.vte.api.VteException the typed error of bad input
   */
  PreparedBatch(
      TransferSubmitter submitter, List<TransferRequest> requests, TransferOptions options) {
    this.submitter = submitter;
    this.batch = new BatchTracker(submitter.callers, submitter.settled, this);
    this.trackers = submitter.validate(batch, requests, options);
    this.requests = List.copyOf(requests);
    this.options = new TransferOptions().setDeadline(options.getDeadline());
    this.deadlineMillis = options.getDeadline().toMillis();
  }

  /**
   * @return the first records' trackers, for the submitter to resolve before the first post
   */
  TransferTracker[] firstTrackers() {
    return trackers;
  }

  @Override
  public Future<BatchResult> post() {
    if (submitter.isClosed() || !claimed.compareAndSet(false, true)) {
      return overflowPost();
    }
    if (retired) {
      BatchTracker fresh = new BatchTracker(submitter.callers, submitter.settled, this);
      TransferTracker[] copies = new TransferTracker[trackers.length];
      for (int i = 0; i < copies.length; i++) {
        copies[i] = trackers[i].copyFor(fresh);
      }
      trackers = copies;
      batch = fresh;
      retired = false;
      recordsMade++;
    }
    BatchTracker b = batch;
    b.reuse(submitter.callers.current());
    for (TransferTracker t : trackers) {
      t.reuse();
    }
    // read before the post starts: once it completes, another post may claim the records
    Future<BatchResult> result = b.result();
    submitter.post(b, trackers, deadlineMillis);
    return result;
  }

  /**
   * Gives the records back when a post's result completes (on the poster's context, before the
   * result's callbacks run); records a straggler may hold are retired, and the next post makes
   * fresh ones.
   */
  @Override
  public void release(boolean reusable) {
    if (!reusable) {
      retired = true;
    }
    claimed.set(false);
  }

  private Future<BatchResult> overflowPost() {
    overflowPosts.incrementAndGet();
    TransferBatch b = submitter.submit(requests, options);
    overflow.add(b);
    Future<BatchResult> result = b.result();
    result.onComplete(ar -> overflow.remove(b));
    return result;
  }

  @Override
  public void cancel() {
    batch.cancel();
    for (TransferBatch b : overflow) {
      b.cancel();
    }
  }

  @Override
  public List<TransferRequest> requests() {
    return requests;
  }

  /**
   * @return how many sets of records were made: 1, plus one for each post after one that could not
   *     give its records back
   */
  public int recordsMade() {
    return recordsMade;
  }

  /**
   * @return posts that ran as ordinary submits (the records were claimed, or the engine closed)
   */
  public long overflowPosts() {
    return overflowPosts.get();
  }
}
