package io.vte.engine.impl.submit;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.RequestResult;
import io.vte.api.RequestStatus;
import io.vte.api.TransferOpcode;
import io.vte.api.TransferRequest;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Route;
import io.vte.engine.impl.rail.Routes;
import io.vte.engine.impl.rail.Routing;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.engine.impl.rail.Transport;
import io.vte.engine.impl.segment.LocalBuffer;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;

/**
 * The state of one request in flight: counts its slices down atomically, retries a failed slice on
 * another rail up to {@code retryCount} times, and settles the request once (COMPLETED, FAILED with
 * a typed cause, CANCELED or TIMED_OUT). Called by owners on their event loops: lock-free, never
 * blocks.
 */
public final class TransferTracker implements SliceCallback {

  private final TrackerServices services;
  private final BatchTracker batch;

  // Set anew by rebind() for each request of a pooled submit record, before it starts.
  private TransferRequest request;
  private LocalBuffer local;

  /**
   * The segment and the index of its buffer that hold the remote range: set by {@link #resolve}
   * before {@link #start}, which publishes them with the slices (the owners read them after they
   * took a slice from their queue).
   */
  private PeerSegment segment;

  private int remoteBuffer = -1;

  /**
   * Each transport's routes to the remote buffer (null where one does not reach it), in the
   * transports' order of preference; set by {@link #start}.
   */
  private final Routes[] routes;

  /**
   * The tracker this one replaces after the peer refused its keys, null for a request's first: it
   * settles that one instead of the batch.
   */
  private final TransferTracker replaced;

  /**
   * The rail the caller pinned the request to ({@link io.vte.api.TransferOptions#setRail}), null
   * for a request that may take any rail.
   */
  private final RailPin pin;

  /** The route of a pinned request, found by {@link #start}; null for others. */
  private Route pinnedRoute;

  // Field updaters rather than atomic objects: three allocations less per request.
  private static final AtomicIntegerFieldUpdater<TransferTracker> SLICES_LEFT =
      AtomicIntegerFieldUpdater.newUpdater(TransferTracker.class, "slicesLeft");
  private static final AtomicLongFieldUpdater<TransferTracker> BYTES =
      AtomicLongFieldUpdater.newUpdater(TransferTracker.class, "bytes");
  private static final AtomicReferenceFieldUpdater<TransferTracker, RequestResult> RESULT =
      AtomicReferenceFieldUpdater.newUpdater(TransferTracker.class, RequestResult.class, "result");

  private static final AtomicIntegerFieldUpdater<TransferTracker> REDIRECTED =
      AtomicIntegerFieldUpdater.newUpdater(TransferTracker.class, "redirected");

  /**
   * The slices of a prepared transfer's request, cut once and posted again, or the one slice of a
   * pooled submit record; null otherwise.
   */
  private Slice[] kept;

  /** The COMPLETED result of reused records, made at the first run that completed this length. */
  private RequestResult completedResult;

  private volatile int slicesLeft;
  private volatile long bytes;
  private volatile RequestResult result;

  /** 1 once the request moved to a fresher descriptor: this tracker's slices are abandoned. */
  private volatile int redirected;

  /**
   * The tracker of a request's first attempt, pinned to {@code pin} (null: any rail); {@link
   * #resolve} names its remote buffer before it starts.
   */
  TransferTracker(
      TrackerServices services,
      BatchTracker batch,
      TransferRequest request,
      LocalBuffer local,
      RailPin pin) {
    this(services, batch, request, local, null, pin);
  }

  private TransferTracker(
      TrackerServices services,
      BatchTracker batch,
      TransferRequest request,
      LocalBuffer local,
      TransferTracker replaced,
      RailPin pin) {
    this.replaced = replaced;
    this.pin = pin;
    this.services = services;
    this.routes = new Routes[services.transports().size()];
    this.batch = batch;
    this.request = request;
    this.local = local;
  }

  /**
   * A tracker with the same request and remote buffer for {@code batch}: a prepared transfer's
   * fresh records, when its former ones may still be held by a slice of an ended post.
   */
  TransferTracker copyFor(BatchTracker batch) {
    TransferTracker t = new TransferTracker(services, batch, request, local, pin);
    t.resolve(segment, remoteBuffer);
    t.keepSlices();
    return t;
  }

  /**
   * Cuts the request's slices once, to be posted at every {@link #start} (prepared transfers,
   * pooled submit records).
   */
  void keepSlices() {
    List<Slice> slices = new ArrayList<>(services.slicer().count(request.length()));
    cut(slices);
    kept = slices.toArray(new Slice[0]);
  }

  private static int opcodeOf(TransferRequest request) {
    return request.opcode() == TransferOpcode.READ ? WrOpcode.RDMA_READ : WrOpcode.RDMA_WRITE;
  }

  private void cut(List<Slice> out) {
    services
        .slicer()
        .cut(
            this,
            opcodeOf(request),
            local.address() + request.localOffset(),
            request.remoteAddress(),
            request.length(),
            out);
  }

  /**
   * Gives a pooled submit record's tracker its next request, which fits in the one slice it keeps;
   * only while no slice of its last request is held anywhere ({@link #completedOnItsOwn}).
   *
   * @param request the validated request
   * @param local its local buffer
   */
  void rebind(TransferRequest request, LocalBuffer local) {
    this.request = request;
    this.local = local;
    kept[0].retarget(
        opcodeOf(request),
        local.address() + request.localOffset(),
        request.remoteAddress(),
        (int) request.length());
    reuse();
  }

  /**
   * Makes reused records' tracker ready for their next run; only once no slice of the last one is
   * held anywhere ({@link #completedOnItsOwn}).
   */
  void reuse() {
    bytes = 0;
    redirected = 0;
    result = null;
  }

  /**
   * @return true when the request completed on this tracker's own slices, each back from its owner:
   *     not cancelled, timed out, failed (a slice may be held for a retry) or redirected (a
   *     replacement holds this tracker)
   */
  boolean completedOnItsOwn() {
    RequestResult r = result;
    return r != null && r.status() == RequestStatus.COMPLETED && redirected == 0;
  }

  /**
   * @return the request this tracker runs
   */
  TransferRequest request() {
    return request;
  }

  /**
   * Names where the remote range is (before {@link #start}; again when a refresh found it).
   *
   * @param segment the descriptor that holds it
   * @param remoteBuffer the index of its buffer there, negative while unknown
   */
  void resolve(PeerSegment segment, int remoteBuffer) {
    this.segment = segment;
    this.remoteBuffer = remoteBuffer;
  }

  /**
   * @return the descriptor last given to {@link #resolve}
   */
  PeerSegment segment() {
    return segment;
  }

  /**
   * @return the remote buffer index last given to {@link #resolve}, negative while unknown
   */
  int remoteBuffer() {
    return remoteBuffer;
  }

  /**
   * Cuts the request into slices with a rail each and appends them to {@code out}; settles the
   * request (appending nothing) when a slice finds no usable route ({@link SliceFailures#noRoute}).
   *
   * @param out receives the slices to route
   */
  void start(List<Slice> out) {
    List<Transport> transports = services.transports();
    for (int i = 0; i < routes.length; i++) {
      routes[i] = transports.get(i).routesTo(segment, remoteBuffer);
    }
    int first = out.size();
    if (pin != null) {
      try {
        pinnedRoute = pinnedRoute();
      } catch (VteException e) {
        settle(RequestStatus.FAILED, e);
        return;
      }
    }
    if (kept != null) {
      for (Slice slice : kept) {
        slice.reset();
        out.add(slice);
      }
    } else {
      cut(out);
    }
    slicesLeft = out.size() - first;
    for (int i = first; i < out.size(); i++) {
      if (!assignRoute(out.get(i), null)) {
        for (int j = first; j < i; j++) {
          Slice unrouted = out.get(j);
          unrouted.route().release(unrouted.length(), false);
        }
        out.subList(first, out.size()).clear();
        settle(RequestStatus.FAILED, noRoute(pausedCause()));
        return;
      }
    }
  }

  /** The route the request is pinned to: the first transport that knows the named devices. */
  private Route pinnedRoute() {
    for (Routes r : routes) {
      Route route =
          r == null ? null : r.pinned(remoteBuffer, pin.localDevice(), pin.remoteDevice());
      if (route != null) {
        return route;
      }
    }
    throw new VteException(
        ErrorCode.NO_RAIL, "no transport to " + segment + " has rails to pin a request to: " + pin);
  }

  /**
   * @return the latest failure that holds routes down, the most preferred transport's first
   */
  private VteException pausedCause() {
    for (Routes r : routes) {
      VteException cause = r == null ? null : r.pausedCause();
      if (cause != null) {
        return cause;
      }
    }
    return null;
  }

  @Override
  public void onSliceDone(Slice slice, int status, Throwable cause) {
    Route route = slice.route();
    route.release(slice.length(), status == SliceStatus.OK);
    if (slice.checksIntegrity()) {
      services.counters().integrityChecked(status);
    }
    if (status == SliceStatus.OK) {
      route.onSuccess();
      BYTES.addAndGet(this, slice.length());
      services.counters().sliceDone(slice.length());
      if (SLICES_LEFT.decrementAndGet(this) == 0) {
        // Only a slice's success may complete the batch inline: it never happens inside submit(),
        // cancel() or a failure path, where an inline callback that submits again would recurse.
        settle(RequestStatus.COMPLETED, null, true);
      }
      return;
    }
    VteException failure = SliceFailures.causeOf(request, slice, status, cause);
    Future<?> deviceStates =
        route.onFailure(status, failure)
            ? services.peerDevices().ask(segment)
            : services.peerDevices().pending(segment);
    if (isAbandoned()) {
      return;
    }
    if (status == WcStatus.REM_ACCESS_ERR.code() && replaced == null) {
      // Of slices refused at once on several owners, one redirects the request; the others were
      // not abandoned yet when they looked and must leave the outcome to it.
      if (REDIRECTED.compareAndSet(this, 0, 1)) {
        redirect(failure);
      }
      return;
    }
    if (SliceStatus.isRetryable(status)
        && slice.attempts() <= services.retryBudget(status, pin != null)) {
      if (deviceStates != null && !deviceStates.isComplete()) {
        deviceStates.onComplete(ar -> retry(slice, failure));
      } else {
        retry(slice, failure);
      }
      return;
    }
    settle(RequestStatus.FAILED, failure);
  }

  /** Retries a failed slice on another route, or settles the request when no route is left. */
  private void retry(Slice slice, VteException failure) {
    if (isAbandoned()) {
      return;
    }
    if (assignRoute(slice, slice.route())) {
      services.counters().retry();
      Routing.submit(slice);
    } else {
      settle(RequestStatus.FAILED, noRoute(failure));
    }
  }

  /**
   * The peer refused this request's keys: it may have restarted or registered the buffer again
   * since the descriptor was read. Runs the whole request once more against the newest descriptor
   * (a newer cached one, else one read from the metadata backend) when that one is newer and holds
   * the range, within the same batch and deadline; otherwise the refusal stands. The slices still
   * in flight are abandoned.
   */
  private void redirect(VteException denied) {
    PeerSegment old = segment;
    services.counters().staleRefresh();
    services
        .freshSegment()
        .apply(old)
        .onComplete(
            ar -> {
              if (result != null) {
                return;
              }
              PeerSegment fresh = ar.succeeded() ? ar.result() : null;
              int index =
                  fresh == null || fresh.version() <= old.version()
                      ? -1
                      : fresh.bufferIndexOf(request.remoteAddress(), request.length());
              if (index < 0) {
                settle(RequestStatus.FAILED, denied);
                return;
              }
              TransferTracker next =
                  new TransferTracker(services, batch, request, local, this, pin);
              next.resolve(fresh, index);
              List<Slice> slices = new ArrayList<>(services.slicer().count(request.length()));
              next.start(slices);
              Routing.route(slices);
            });
  }

  @Override
  public boolean isAbandoned() {
    return result != null || redirected != 0 || replaced != null && replaced.result != null;
  }

  /**
   * Settles the request unless it already is.
   *
   * @param status final status
   * @param cause typed cause, null for COMPLETED
   */
  void settle(RequestStatus status, VteException cause) {
    settle(status, cause, false);
  }

  private void settle(RequestStatus status, VteException cause, boolean inlineAllowed) {
    RequestResult settled = resultOf(status, cause);
    if (RESULT.compareAndSet(this, null, settled)) {
      if (replaced != null) {
        replaced.settleWith(settled, inlineAllowed);
      } else {
        batch.requestSettled(inlineAllowed);
      }
    }
  }

  /**
   * @return the request's result; reused records make a COMPLETED one once per length and give it
   *     at every run that completes that length (results are immutable)
   */
  private RequestResult resultOf(RequestStatus status, VteException cause) {
    long moved = bytes;
    if (kept == null || status != RequestStatus.COMPLETED || moved != request.length()) {
      return new RequestResult(status, moved, cause);
    }
    RequestResult r = completedResult;
    if (r == null || r.bytes() != moved) {
      r = new RequestResult(status, moved, null);
      completedResult = r;
    }
    return r;
  }

  /** Settles a redirected request with its replacement's result. */
  private void settleWith(RequestResult settled, boolean inlineAllowed) {
    if (RESULT.compareAndSet(this, null, settled)) {
      batch.requestSettled(inlineAllowed);
    }
  }

  /**
   * @return the final result, or null while running
   */
  RequestResult result() {
    return result;
  }

  /**
   * @return bytes moved so far
   */
  long bytes() {
    return bytes;
  }

  /**
   * Gives a slice its route: the pinned one, else the first usable one of the transports in their
   * order of preference, each skipping {@code avoid} unless it is its only usable route.
   *
   * @return false when no transport has a usable route
   */
  private boolean assignRoute(Slice slice, Route avoid) {
    Route route = pinnedRoute;
    if (route != null) {
      route.acquire(slice.length());
    }
    for (int i = 0; route == null && i < routes.length; i++) {
      route = routes[i] == null ? null : routes[i].select(remoteBuffer, avoid, slice.length());
    }
    if (route == null) {
      return false;
    }
    slice.checkIntegrity(batch.checksIntegrity());
    route.assign(slice, local, remoteBuffer);
    return true;
  }

  /** {@link SliceFailures#noRoute} for this request. */
  private VteException noRoute(VteException lastFailure) {
    return SliceFailures.noRoute(local, segment, request, lastFailure);
  }
}
