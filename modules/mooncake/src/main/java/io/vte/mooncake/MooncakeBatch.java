package io.vte.mooncake;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vte.api.BatchResult;
import io.vte.api.ErrorCode;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.TransferBatch;
import io.vte.api.VteException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A batch of VTE requests sent to Mooncake segments, with VTE's semantics: each request ends
 * COMPLETED, FAILED (first failing slice's typed cause), CANCELED ({@link #cancel()}) or TIMED_OUT
 * (the batch deadline); a request that ends early takes its queued slices off their queues and
 * closes the lanes carrying the others, so no byte of it moves afterwards. Confined to the
 * transport's event loop, except {@link #cancel()}.
 */
final class MooncakeBatch implements TransferBatch, Slice.Owner {

  private final Vertx vertx;
  private final Context context;
  private final Promise<BatchResult> result = Promise.promise();
  private final RequestResult[] results;
  private final long[] bytes;
  private final int[] slicesLeft;
  private final List<List<Slice>> slices;
  private int unfinished;
  private long deadlineTimer = -1;

  MooncakeBatch(Vertx vertx, Context context, int requests) {
    this.vertx = vertx;
    this.context = context;
    this.results = new RequestResult[requests];
    this.bytes = new long[requests];
    this.slicesLeft = new int[requests];
    this.slices = new ArrayList<>(requests);
    for (int i = 0; i < requests; i++) {
      slices.add(new ArrayList<>(1));
    }
    this.unfinished = requests;
  }

  /** Records a slice of request {@code index} (before {@link #start}). */
  void add(Slice slice, long requestBytes) {
    slices.get(slice.request).add(slice);
    slicesLeft[slice.request]++;
    bytes[slice.request] = requestBytes;
  }

  /** Arms the deadline, completes empty requests and queues every slice. */
  void start(Duration deadline) {
    for (int i = 0; i < results.length; i++) {
      if (slicesLeft[i] == 0) {
        end(i, new RequestResult(RequestStatus.COMPLETED, 0, null));
      }
    }
    if (unfinished == 0) {
      return;
    }
    deadlineTimer =
        vertx.setTimer(
            Math.max(1, deadline.toMillis()),
            id -> {
              deadlineTimer = -1;
              endAll(
                  RequestStatus.TIMED_OUT,
                  new VteException(ErrorCode.TIMED_OUT, "deadline of " + deadline + " passed"));
            });
    for (List<Slice> list : slices) {
      for (Slice s : list) {
        s.pool.enqueue(s);
      }
    }
  }

  /** Fails the whole batch before anything was sent. */
  void reject(Throwable cause) {
    result.tryFail(cause);
  }

  @Override
  public void sliceDone(Slice slice) {
    slice.done = true;
    int i = slice.request;
    if (results[i] == null && --slicesLeft[i] == 0) {
      end(i, new RequestResult(RequestStatus.COMPLETED, bytes[i], null));
    }
  }

  @Override
  public void sliceFailed(Slice slice, VteException cause) {
    slice.done = true;
    if (results[slice.request] == null) {
      end(slice.request, new RequestResult(RequestStatus.FAILED, 0, cause));
    }
  }

  /** Ends every unfinished request with {@code status}. */
  void endAll(RequestStatus status, VteException cause) {
    for (int i = 0; i < results.length; i++) {
      if (results[i] == null) {
        end(i, new RequestResult(status, 0, cause));
      }
    }
  }

  private void end(int index, RequestResult r) {
    results[index] = r;
    for (Slice s : slices.get(index)) {
      if (!s.done) {
        s.done = true;
        if (s.lane != null) {
          s.lane.abort();
        } else {
          s.pool.dequeue(s);
        }
      }
    }
    if (--unfinished == 0) {
      if (deadlineTimer != -1) {
        vertx.cancelTimer(deadlineTimer);
      }
      result.tryComplete(new BatchResult(Arrays.asList(results)));
    }
  }

  @Override
  public Future<BatchResult> result() {
    return result.future();
  }

  @Override
  public void cancel() {
    context.runOnContext(
        v ->
            endAll(
                RequestStatus.CANCELED,
                new VteException(ErrorCode.CANCELED, "batch canceled by the caller")));
  }
}
