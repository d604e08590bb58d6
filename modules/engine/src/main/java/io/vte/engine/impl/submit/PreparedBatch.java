package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vte.api.BatchResult;
import io.vte.api.PreparedTransfer;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A prepared transfer ({@link io.vte.api.TransferEngine#prepare}): its requests validated and
 * resolved once, and one set of {@link ReusedRecords} posted again and again. A post claims the
 * records; the post's completion gives them back before the caller's callback runs. A post that
 * finds the records claimed runs as an ordinary submit of the same requests. Thread-safe.
 */
public final class PreparedBatch implements PreparedTransfer {

  private final TransferSubmitter submitter;
  private final List<TransferRequest> requests;
  private final TransferOptions options;

  /** A post runs on the records; released by its completion. */
  private final AtomicBoolean claimed = new AtomicBoolean();

  /** Posts that ran as ordinary submits, in flight (for {@link #cancel()}). */
  private final Set<TransferBatch> overflow = ConcurrentHashMap.newKeySet();

  private final AtomicLong overflowPosts = new AtomicLong();

  private final ReusedRecords records;

  /** Sets of records made: written under the claim (and by the constructor). */
  private volatile int recordsMade;

  /**
   * Validates the requests into the first records (their remote ranges are resolved by the
   * submitter before the first post).
   *
   * @throws io.vte.api.VteException the typed error of bad input
   */
  PreparedBatch(
      TransferSubmitter submitter, List<TransferRequest> requests, TransferOptions options) {
    this.submitter = submitter;
    this.records =
        submitter.reusedRecords(
            r -> claimed.set(false),
            batch -> submitter.validate(batch, requests, options),
            () -> recordsMade++);
    this.requests = List.copyOf(requests);
    this.options =
        new TransferOptions()
            .setDeadline(options.getDeadline())
            .setIntegrity(options.getIntegrity());
  }

  /**
   * @return the first records' trackers, for the submitter to resolve before the first post
   */
  TransferTracker[] firstTrackers() {
    return records.trackers();
  }

  @Override
  public Future<BatchResult> post() {
    if (submitter.isClosed() || !claimed.compareAndSet(false, true)) {
      return overflowPost();
    }
    BatchTracker b = records.run();
    // read before the post starts: once it completes, another post may claim the records
    Future<BatchResult> result = b.result();
    submitter.post(b, records.trackers(), options);
    return result;
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
    records.batch().cancel();
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
