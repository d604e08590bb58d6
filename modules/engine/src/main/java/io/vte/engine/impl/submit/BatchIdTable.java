package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.TaskState;
import io.vte.api.TaskStatus;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The Mooncake-style explicit batch-id API on top of {@link BatchTracker}s: an id owns a fixed
 * number of task slots filled by successive submits; status is polled per task or per batch; an id
 * with unfinished tasks cannot be freed. Thread-safe.
 */
public final class BatchIdTable {

  private final AtomicLong nextId = new AtomicLong(1);
  private final Map<Long, IdBatch> batches = new ConcurrentHashMap<>();

  private record Part(int base, int count, BatchTracker tracker) {}

  private static final class IdBatch {
    final int capacity;
    final List<Part> parts = new ArrayList<>();
    int used;

    IdBatch(int capacity) {
      this.capacity = capacity;
    }
  }

  /**
   * @param capacity task slots, positive
   * @return a new batch id
   */
  public long allocate(int capacity) {
    if (capacity <= 0) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "batch capacity must be positive, got " + capacity);
    }
    long id = nextId.getAndIncrement();
    batches.put(id, new IdBatch(capacity));
    return id;
  }

  /**
   * @param id batch id
   * @param requests the tasks to add
   * @param submitter starts a batch of requests
   * @return completes when the tasks were validated and routed
   */
  public Future<Void> submit(
      long id,
      List<TransferRequest> requests,
      Function<List<TransferRequest>, BatchTracker> submitter) {
    IdBatch b;
    int base;
    try {
      b = get(id);
      int n = requests == null ? 0 : requests.size();
      synchronized (b) {
        if (b.used + n > b.capacity) {
          throw new VteException(
              ErrorCode.BATCH_BUSY,
              "batch "
                  + id
                  + " has "
                  + (b.capacity - b.used)
                  + " free task slot(s) of "
                  + b.capacity
                  + ", cannot add "
                  + n);
        }
        base = b.used;
        b.used += n;
      }
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    BatchTracker tracker = submitter.apply(requests);
    synchronized (b) {
      b.parts.add(new Part(base, requests.size(), tracker));
    }
    return tracker.accepted();
  }

  /**
   * @param id batch id
   * @param task task index
   * @return its status (WAITING for an allocated slot not yet submitted)
   */
  public TaskStatus status(long id, int task) {
    IdBatch b = get(id);
    if (task < 0 || task >= b.capacity) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "task index " + task + " is outside batch " + id + " of capacity " + b.capacity);
    }
    synchronized (b) {
      for (Part p : b.parts) {
        if (task >= p.base && task < p.base + p.count) {
          return p.tracker.status(task - p.base);
        }
      }
    }
    return new TaskStatus(TaskState.WAITING, 0, null);
  }

  /**
   * @param id batch id
   * @return WAITING, PENDING, the first non-completed final state found, or COMPLETED
   */
  public TaskState batchStatus(long id) {
    IdBatch b = get(id);
    List<Part> parts;
    synchronized (b) {
      parts = new ArrayList<>(b.parts);
    }
    if (parts.isEmpty()) {
      return TaskState.WAITING;
    }
    TaskState worst = TaskState.COMPLETED;
    for (Part p : parts) {
      for (int i = 0; i < p.count; i++) {
        TaskState s = p.tracker.status(i).state();
        if (s == TaskState.PENDING) {
          return TaskState.PENDING;
        }
        if (s != TaskState.COMPLETED && worst == TaskState.COMPLETED) {
          worst = s;
        }
      }
    }
    return worst;
  }

  /**
   * @param id batch id
   * @throws VteException BATCH_BUSY while a task is unfinished
   */
  public void free(long id) {
    IdBatch b = get(id);
    synchronized (b) {
      // Judged by task states, exactly as status() reports them, so a caller that saw every task
      // finished can always free the batch.
      long busy = 0;
      for (Part p : b.parts) {
        for (int i = 0; i < p.count; i++) {
          if (p.tracker.status(i).state() == TaskState.PENDING) {
            busy++;
          }
        }
      }
      if (busy > 0) {
        throw new VteException(
            ErrorCode.BATCH_BUSY, "batch " + id + " still has " + busy + " unfinished task(s)");
      }
      batches.remove(id);
    }
  }

  private IdBatch get(long id) {
    IdBatch b = batches.get(id);
    if (b == null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "unknown batch id " + id);
    }
    return b;
  }
}
