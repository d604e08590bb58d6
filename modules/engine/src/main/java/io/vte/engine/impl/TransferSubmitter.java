package io.vte.engine.impl;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vte.api.ErrorCode;
import io.vte.api.SegmentHandle;
import io.vte.api.TransferOptions;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Turns a list of requests into a running batch: validates everything up front (nothing is sent on
 * bad input), refreshes a segment once when a remote range is not in its cached descriptor, cuts
 * requests into slices with rails and routes them in one call. Keeps the batches in flight so that
 * close can settle them. Thread-safe.
 */
public final class TransferSubmitter {

  private final Vertx vertx;
  private final MemoryRegistry memory;
  private final SegmentCache segments;
  private final RailSelector railSelector;
  private final TransferTracker.Services services;
  private final Set<BatchTracker> inFlight = ConcurrentHashMap.newKeySet();
  private final Consumer<BatchTracker> settled = inFlight::remove;
  private final DeadlineSweeper deadlines;
  private volatile boolean closed;

  /**
   * @param vertx for timers and contexts
   * @param memory local registrations
   * @param segments peer segments
   * @param railSelector rail choice
   * @param services slicer, router, retry count, counters
   */
  public TransferSubmitter(
      Vertx vertx,
      MemoryRegistry memory,
      SegmentCache segments,
      RailSelector railSelector,
      TransferTracker.Services services) {
    this.vertx = vertx;
    this.memory = memory;
    this.segments = segments;
    this.railSelector = railSelector;
    this.services = services;
    this.deadlines = new DeadlineSweeper(vertx, inFlight);
  }

  /**
   * @param requests the requests
   * @param options deadline
   * @return the batch (its result fails up front for bad input or a closed engine)
   */
  public BatchTracker submit(List<TransferRequest> requests, TransferOptions options) {
    BatchTracker batch = new BatchTracker(vertx, settled);
    if (closed) {
      batch.reject(new VteException(ErrorCode.ENGINE_CLOSED, "engine is closed"));
      return batch;
    }
    LocalBuffer[] locals;
    try {
      locals = validateLocal(requests, options);
    } catch (VteException e) {
      batch.reject(e);
      return batch;
    }
    inFlight.add(batch);
    services.counters().batchSubmitted();
    long deadline = options.getDeadline().toMillis();
    batch.armDeadline(deadline);
    deadlines.batchAdded();
    if (closed) {
      batch.engineClosed();
    }
    Resolved cached = resolveCached(requests);
    if (cached.complete()) {
      start(batch, requests, locals, cached);
      return batch;
    }
    resolveRemote(requests, cached)
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
              start(batch, requests, locals, ar.result());
            });
    return batch;
  }

  /** Makes the requests' trackers, cuts their slices and routes them. */
  private void start(
      BatchTracker batch, List<TransferRequest> requests, LocalBuffer[] locals, Resolved resolved) {
    int n = requests.size();
    TransferTracker[] trackers = new TransferTracker[n];
    int total = 0;
    for (int i = 0; i < n; i++) {
      TransferRequest r = requests.get(i);
      PeerSegment seg = resolved.segments[i];
      trackers[i] =
          new TransferTracker(
              services, batch, r, locals[i], railSelector.railsFor(seg), resolved.bufferIndex[i]);
      total += services.slicer().count(r.length());
    }
    List<Slice> slices = new ArrayList<>(total);
    batch.start(trackers, slices);
    services.router().route(slices);
  }

  /** Stops accepting work and settles every batch in flight with ENGINE_CLOSED. */
  public void close() {
    closed = true;
    deadlines.close();
    for (BatchTracker b : inFlight) {
      b.engineClosed();
    }
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

  private LocalBuffer[] validateLocal(List<TransferRequest> requests, TransferOptions options) {
    if (options == null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "transfer options must not be null");
    }
    if (requests == null || requests.isEmpty()) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT, "a batch needs at least one request, got " + requests);
    }
    LocalBuffer[] locals = new LocalBuffer[requests.size()];
    for (int i = 0; i < locals.length; i++) {
      TransferRequest r = requests.get(i);
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
      locals[i] = local;
    }
    return locals;
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
   * Each request's segment and remote buffer index; an index is negative where the range is in
   * neither the request's handle nor the newest cached descriptor of its segment.
   */
  private record Resolved(PeerSegment[] segments, int[] bufferIndex, boolean complete) {}

  /**
   * Finds each request's remote buffer in its handle or, missing there, in the newest cached
   * descriptor of its segment (another request may have fetched it already): no Future and no map,
   * the common case.
   */
  private Resolved resolveCached(List<TransferRequest> requests) {
    int n = requests.size();
    PeerSegment[] segs = new PeerSegment[n];
    int[] index = new int[n];
    boolean complete = true;
    for (int i = 0; i < n; i++) {
      TransferRequest r = requests.get(i);
      segs[i] = (PeerSegment) r.segment();
      index[i] = segs[i].bufferIndexOf(r.remoteAddress(), r.length());
      if (index[i] < 0) {
        segs[i] = segments.newest(segs[i]);
        index[i] = segs[i].bufferIndexOf(r.remoteAddress(), r.length());
        complete &= index[i] >= 0;
      }
    }
    return new Resolved(segs, index, complete);
  }

  /**
   * Resolves the ranges {@link #resolveCached} missed: each segment concerned is refreshed once
   * (shared with concurrent callers) from the metadata backend itself, bypassing its cache, and
   * only a miss against the refreshed descriptor fails, with OUT_OF_RANGE; so does a miss whose
   * refresh failed (with the refresh's failure as cause), against the descriptor the caller held.
   */
  private Future<Resolved> resolveRemote(List<TransferRequest> requests, Resolved cached) {
    int n = requests.size();
    PeerSegment[] segs = cached.segments();
    int[] index = cached.bufferIndex();
    Map<PeerSegment, Future<PeerSegment>> refreshes = new IdentityHashMap<>();
    for (int i = 0; i < n; i++) {
      if (index[i] < 0 && !refreshes.containsKey(segs[i])) {
        services.counters().staleRefresh();
        refreshes.put(segs[i], segments.refresh(segs[i]));
      }
    }
    return Future.join(new ArrayList<>(refreshes.values()))
        .transform(
            ignored -> {
              for (int i = 0; i < n; i++) {
                if (index[i] >= 0) {
                  continue;
                }
                TransferRequest r = requests.get(i);
                Future<PeerSegment> fresh = refreshes.get(segs[i]);
                PeerSegment seg = fresh.failed() ? segs[i] : fresh.result();
                int idx = seg.bufferIndexOf(r.remoteAddress(), r.length());
                if (idx < 0) {
                  return Future.failedFuture(outOfRange(i, r, seg, fresh.cause()));
                }
                segs[i] = seg;
                index[i] = idx;
              }
              return Future.succeededFuture(new Resolved(segs, index, true));
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
            ErrorCode.OUT_OF_RANGE,
            message + " (fetching it again failed: " + refreshFailure.getMessage() + ")",
            refreshFailure);
  }
}
