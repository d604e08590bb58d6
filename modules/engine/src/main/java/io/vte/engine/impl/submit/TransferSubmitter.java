package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.PreparedTransfer;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferBatch;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Routing;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.MemoryRegistry;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.engine.impl.segment.SegmentCache;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Turns a list of requests into a running batch: validates everything up front (nothing is sent on
 * bad input), refreshes a segment once when a remote range is not in its cached descriptor, cuts
 * requests into slices with rails and routes them in one call. Keeps the batches in flight so that
 * close can settle them. Thread-safe.
 */
public final class TransferSubmitter {

  private final MemoryRegistry memory;
  private final SegmentCache segments;
  private final TrackerServices services;
  private final InFlightBatches inFlight = new InFlightBatches();
  private final SubmitRecordPool records = new SubmitRecordPool(RECORD_REGIONS);

  /** Pool regions of {@link SubmitRecordPool#REGION} records: threads that rarely share. */
  private static final int RECORD_REGIONS = 16;

  /** Where batches' results complete. */
  private final CallerContexts callers;

  /** What a batch calls once settled (it leaves the in-flight list). */
  private final Consumer<BatchTracker> settled = this::settled;

  /** A batch settled: it leaves the in-flight list and its requests are counted. */
  private void settled(BatchTracker batch) {
    inFlight.remove(batch);
    batch.countInto(services.counters());
  }

  private final DeadlineSweeper deadlines;
  private volatile boolean closed;

  /**
   * @param vertx for timers and contexts
   * @param memory local registrations
   * @param segments peer segments
   * @param services slicer, router, rail choice, retry count, counters
   */
  public TransferSubmitter(
      Vertx vertx, MemoryRegistry memory, SegmentCache segments, TrackerServices services) {
    this.memory = memory;
    this.segments = segments;
    this.services = services;
    this.deadlines = new DeadlineSweeper(vertx, inFlight);
    this.callers = new CallerContexts(vertx);
  }

  /**
   * Submits a batch. A request submitted alone that fits in one slice runs on pooled records (no
   * allocation but the caller's handle and result); any other batch on records of its own.
   *
   * @param requests the requests
   * @param options deadline
   * @return the batch (its result fails up front for bad input or a closed engine)
   */
  public TransferBatch submit(List<TransferRequest> requests, TransferOptions options) {
    if (!closed
        && options != null
        && options.getRailLocalDevice() == null
        && requests != null
        && requests.size() == 1) {
      TransferRequest r = requests.get(0);
      if (r != null && r.length() > 0 && services.slicer().count(r.length()) == 1) {
        return submitAlone(r, options);
      }
    }
    return submitTracked(requests, options);
  }

  private TransferBatch submitAlone(TransferRequest request, TransferOptions options) {
    LocalBuffer local;
    try {
      local = check(0, request);
    } catch (VteException e) {
      return rejected(e);
    }
    ReusedRecords record = records.take();
    if (record == null) {
      int home = records.homeOfCaller();
      record =
          reusedRecords(
              r -> records.give(r, home),
              batch -> {
                TransferTracker t = new TransferTracker(services, batch, request, local, null);
                t.keepSlices();
                return new TransferTracker[] {t};
              },
              records::countMade);
    }
    BatchTracker batch = record.run();
    TransferTracker[] trackers = record.trackers();
    trackers[0].rebind(request, local);
    // made before the run starts: once it completes, another run may take the records
    TransferBatch handle = new SubmitHandle(batch, batch.generation(), batch.result());
    admit(batch, options.getDeadline().toMillis(), services.checksIntegrity(options));
    resolveAndStart(batch, trackers);
    return handle;
  }

  /**
   * Makes records of this submitter's batches to run again and again: see {@link ReusedRecords}.
   */
  ReusedRecords reusedRecords(
      Consumer<ReusedRecords> released,
      Function<BatchTracker, TransferTracker[]> trackers,
      Runnable made) {
    return new ReusedRecords(callers, settled, released, trackers, made);
  }

  private BatchTracker rejected(VteException cause) {
    BatchTracker batch = new BatchTracker(callers, settled);
    batch.reject(cause);
    return batch;
  }

  /**
   * Submits a batch on records of its own, which the caller may keep asking (the batch-id API).
   *
   * @param requests the requests
   * @param options deadline
   * @return the batch (its result fails up front for bad input or a closed engine)
   */
  public BatchTracker submitTracked(List<TransferRequest> requests, TransferOptions options) {
    if (closed) {
      return rejected(new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed"));
    }
    BatchTracker batch = new BatchTracker(callers, settled);
    TransferTracker[] trackers;
    try {
      trackers = validate(batch, requests, options);
    } catch (VteException e) {
      batch.reject(e);
      return batch;
    }
    admit(batch, options.getDeadline().toMillis(), services.checksIntegrity(options));
    resolveAndStart(batch, trackers);
    return batch;
  }

  /**
   * Starts an admitted batch once its remote ranges are resolved: at once when the cached
   * descriptors hold them, else after a refresh; a range found in neither rejects the batch.
   */
  private void resolveAndStart(BatchTracker batch, TransferTracker[] trackers) {
    if (resolveCached(trackers)) {
      start(batch, trackers);
      return;
    }
    resolveRemote(trackers)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                batch.reject(
                    ar.cause() instanceof VteException
                        ? (VteException) ar.cause()
                        : new VteException(
                            ErrorCode.INTERNAL, "resolving segments failed", ar.cause()));
                return;
              }
              start(batch, trackers);
            });
  }

  /**
   * Validates a batch and resolves its remote ranges once, for posting it many times.
   *
   * @param requests the requests
   * @param options the deadline of every post
   * @return the prepared batch, or the typed error {@link #submit} would give the batch
   */
  public Future<PreparedTransfer> prepare(List<TransferRequest> requests, TransferOptions options) {
    if (closed) {
      return Future.failedFuture(new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed"));
    }
    PreparedBatch prepared;
    try {
      prepared = new PreparedBatch(this, requests, options);
    } catch (VteException e) {
      return Future.failedFuture(e);
    }
    TransferTracker[] trackers = prepared.firstTrackers();
    Future<Void> resolved =
        resolveCached(trackers) ? Future.succeededFuture() : resolveRemote(trackers);
    return resolved.map(
        ignored -> {
          for (TransferTracker t : trackers) {
            t.keepSlices();
          }
          return prepared;
        });
  }

  /**
   * Runs a post of a prepared batch on records that are ready for it.
   *
   * @param batch the records' batch, made ready by {@link BatchTracker#reuse}
   * @param trackers its trackers, each made ready by {@link TransferTracker#reuse()}
   * @param options the post's deadline and integrity
   */
  void post(BatchTracker batch, TransferTracker[] trackers, TransferOptions options) {
    admit(batch, options.getDeadline().toMillis(), services.checksIntegrity(options));
    start(batch, trackers);
  }

  /**
   * @return true once the engine closed
   */
  boolean isClosed() {
    return closed;
  }

  /**
   * Puts a validated batch in flight: the close and the deadline sweep see it from now on. The
   * deadline is armed first: reused records still hold their last run's, which the sweep must never
   * see on the new run.
   */
  private void admit(BatchTracker batch, long deadlineMillis, boolean integrity) {
    batch.armDeadline(deadlineMillis);
    batch.checkIntegrity(integrity);
    inFlight.add(batch);
    services.counters().batchSubmitted();
    deadlines.batchAdded();
    if (closed) {
      batch.engineClosed();
    }
  }

  /** Cuts the requests' slices and routes them. */
  private void start(BatchTracker batch, TransferTracker[] trackers) {
    SliceScratch scratch = SCRATCH.get();
    if (scratch.inUse) {
      // a completion handler run inside route() submitted again on this thread
      startWith(batch, trackers, new ArrayList<>());
      return;
    }
    scratch.inUse = true;
    try {
      startWith(batch, trackers, scratch.slices);
    } finally {
      scratch.release();
    }
  }

  private void startWith(BatchTracker batch, TransferTracker[] trackers, ArrayList<Slice> slices) {
    int total = 0;
    for (TransferTracker t : trackers) {
      total += services.slicer().count(t.request().length());
    }
    slices.ensureCapacity(total);
    batch.start(trackers, slices);
    Routing.route(slices);
  }

  /**
   * The list a thread cuts its batches' slices into, reused so that a batch allocates none: the
   * router takes the slices out of it before {@link #start} returns.
   */
  private static final ThreadLocal<SliceScratch> SCRATCH =
      ThreadLocal.withInitial(SliceScratch::new);

  private static final class SliceScratch {

    /** Slices a reused list keeps room for; a larger batch's list is trimmed after it. */
    private static final int KEPT_CAPACITY = 1024;

    private final ArrayList<Slice> slices = new ArrayList<>();
    private boolean inUse;

    void release() {
      if (slices.size() > KEPT_CAPACITY) {
        slices.clear();
        slices.trimToSize();
      } else {
        slices.clear();
      }
      inUse = false;
    }
  }

  /**
   * @return submit records made so far: a request submitted alone runs on a free one when its
   *     thread's pool region has one
   */
  public int submitRecordsMade() {
    return records.made();
  }

  /** Stops accepting work and settles every batch in flight with ENGINE_CLOSED. */
  public void close() {
    closed = true;
    deadlines.close();
    inFlight.forEach(BatchTracker::engineClosed);
  }

  /**
   * @return true while the deadline sweep runs (it stops once no batch is in flight)
   */
  boolean deadlineSweepArmed() {
    return deadlines.isArmed();
  }

  /**
   * @return batches not yet settled
   */
  public int inFlight() {
    return inFlight.size();
  }

  /**
   * @return a tracker per request, each with its local buffer; nothing is sent when one is bad
   */
  TransferTracker[] validate(
      BatchTracker batch, List<TransferRequest> requests, TransferOptions options) {
    if (options == null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "transfer options must not be null");
    }
    if (requests == null || requests.isEmpty()) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "a batch needs at least one request, got " + requests);
    }
    TransferTracker[] trackers = new TransferTracker[requests.size()];
    RailPin pin = RailPin.of(options);
    for (int i = 0; i < trackers.length; i++) {
      TransferRequest r = requests.get(i);
      trackers[i] = new TransferTracker(services, batch, r, check(i, r), pin);
    }
    return trackers;
  }

  /**
   * @return the local buffer of request {@code i}, once its fields and ranges are checked
   * @throws VteException the typed error of the first thing wrong with it
   */
  private LocalBuffer check(int i, TransferRequest r) {
    if (r == null || r.opcode() == null || r.local() == null || r.segment() == null) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          which(i) + "opcode, local buffer and segment are required: " + r);
    }
    if (r.length() <= 0) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, which(i) + "length must be positive, got " + r.length());
    }
    if (!memory.owns(r.local())) {
      throw new VteException(
          ErrorCode.NOT_REGISTERED,
          which(i)
              + "local buffer at 0x"
              + Long.toHexString(r.local().address())
              + " is not registered with this engine");
    }
    LocalBuffer local = (LocalBuffer) r.local();
    if (r.localOffset() < 0 || !local.contains(local.address() + r.localOffset(), r.length())) {
      throw new VteException(
          ErrorCode.OUT_OF_RANGE,
          which(i)
              + "local range offset "
              + r.localOffset()
              + " length "
              + r.length()
              + " (address 0x"
              + Long.toHexString(local.address() + r.localOffset())
              + ") is outside "
              + local);
    }
    if (!(r.segment() instanceof PeerSegment)) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          which(i)
              + "the handle of segment "
              + describe(r.segment())
              + " was not opened by a VTE engine (it is a "
              + r.segment().getClass().getName()
              + ")");
    }
    return local;
  }

  private static String which(int index) {
    return "request " + index + ": ";
  }

  /**
   * @return {@code 'name' (server host:port)} of a handle of unknown make, whose methods may throw
   */
  private static String describe(SegmentHandle handle) {
    try {
      return "'" + handle.name() + "' (server " + handle.serverName() + ")";
    } catch (RuntimeException e) {
      return "of unknown name (" + e + ")";
    }
  }

  /**
   * Finds each request's remote buffer in its handle or, missing there, in the newest cached
   * descriptor of its segment (another request may have fetched it already): no Future and no map,
   * the common case. A tracker whose range is in neither keeps a negative buffer index.
   *
   * @return true when every range was found
   */
  private boolean resolveCached(TransferTracker[] trackers) {
    boolean complete = true;
    for (TransferTracker t : trackers) {
      TransferRequest r = t.request();
      PeerSegment seg = (PeerSegment) r.segment();
      int index = seg.bufferIndexOf(r.remoteAddress(), r.length());
      if (index < 0) {
        seg = segments.newest(seg);
        index = seg.bufferIndexOf(r.remoteAddress(), r.length());
        complete &= index >= 0;
      }
      t.resolve(seg, index);
    }
    return complete;
  }

  /**
   * Resolves the ranges {@link #resolveCached} missed: each segment concerned is refreshed once
   * (shared with concurrent callers) from the metadata backend itself, bypassing its cache, and
   * only a miss against the refreshed descriptor fails, with OUT_OF_RANGE; a miss whose refresh
   * failed is checked against the newest descriptor still cached and fails with the refresh's code
   * (e.g. PEER_UNREACHABLE) and cause.
   */
  private Future<Void> resolveRemote(TransferTracker[] trackers) {
    Map<PeerSegment, Future<PeerSegment>> refreshes = new IdentityHashMap<>();
    for (TransferTracker t : trackers) {
      if (t.remoteBuffer() < 0 && !refreshes.containsKey(t.segment())) {
        services.counters().staleRefresh();
        refreshes.put(t.segment(), segments.refresh(t.segment()));
      }
    }
    return Future.join(new ArrayList<>(refreshes.values()))
        .transform(
            ignored -> {
              for (int i = 0; i < trackers.length; i++) {
                TransferTracker t = trackers[i];
                if (t.remoteBuffer() >= 0) {
                  continue;
                }
                TransferRequest r = t.request();
                Future<PeerSegment> fresh = refreshes.get(t.segment());
                // A failed fetch (the peer is down) leaves the newest good descriptor cached.
                PeerSegment seg = fresh.failed() ? segments.newest(t.segment()) : fresh.result();
                int idx = seg.bufferIndexOf(r.remoteAddress(), r.length());
                if (idx < 0) {
                  return Future.failedFuture(outOfRange(i, r, seg, fresh.cause()));
                }
                t.resolve(seg, idx);
              }
              return Future.succeededFuture();
            });
  }

  /**
   * @param refreshFailure why the segment could not be fetched again, or null
   */
  private static VteException outOfRange(
      int index, TransferRequest r, PeerSegment seg, Throwable refreshFailure) {
    String message =
        "request "
            + index
            + ": remote range 0x"
            + Long.toHexString(r.remoteAddress())
            + "+"
            + r.length()
            + " is outside every buffer of "
            + seg;
    return refreshFailure == null
        ? new VteException(ErrorCode.OUT_OF_RANGE, message)
        : new VteException(
            refreshFailure instanceof VteException v ? v.code() : ErrorCode.OUT_OF_RANGE,
            message + " (fetching it again failed: " + refreshFailure.getMessage() + ")",
            refreshFailure);
  }
}
