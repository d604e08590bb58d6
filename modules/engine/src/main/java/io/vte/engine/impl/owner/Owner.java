package io.vte.engine.impl.owner;

import io.vertx.core.AsyncResult;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.handshake.HandshakeChannel;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * One owner: a CQ, the endpoints whose peer NIC path hashes to it, and the duty cycle {@link
 * #doWork()} that drives them. Every method runs on the owner's thread (its event loop, or a test
 * calling {@code doWork()} directly); other threads reach it only through its {@link OwnerProxy}.
 *
 * <p>Work requests in flight are tracked in {@link WorkRequestSlots}, sized to the CQ: a slot is a
 * credit, so the owner never has more signaled work requests in flight than its CQ holds.
 *
 * <p>The owner posts, polls, creates and destroys QPs and retires endpoints; getting an endpoint
 * connected (active, passive and simultaneous open) is its {@link Connector}'s job.
 *
 * <p>A posted WRITE that did not complete may still execute at the peer (an RC QP that saw an error
 * does not know what its peer executed; soft verbs: the request may wait unread in the peer's
 * socket). Before such a slice is handed back for a retry elsewhere, the owner fences its endpoint
 * ({@link WriteFence}): the peer is asked to retire its end (a disconnect) and the slices are held
 * until it answers DISCONNECTED; when that cannot be confirmed they end {@link
 * SliceStatus#FENCE_FAILED}, which is not retried.
 */
final class Owner {

  /** Most QPs one endpoint may have (both sides). */
  static final int MAX_QPS_PER_ENDPOINT = ConnectMessages.MAX_QPS_PER_ENDPOINT;

  /**
   * Checks for unused endpoints per {@code idleEndpoint}: one is retired between 1 and 1.25 times
   * that after its last use.
   */
  private static final int IDLE_CHECKS_PER_PERIOD = 4;

  /** Checks for stalled endpoints per stall limit: one is retired within 1.25 times that. */
  private static final int STALL_CHECKS_PER_PERIOD = 4;

  private final int index;
  private final OwnerConfig config;
  private final NicPath localNicPath;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final NanoClock clock;
  private final OwnerProxy proxy;
  private final OwnerDirectory directory;
  private final OwnerMetrics metrics = new OwnerMetrics();

  private final EndpointStore store;
  private final QpJobs qpJobs;
  private final Connector connector;
  private final Map<Integer, Endpoint> endpointsByQp = new HashMap<>();
  private final ArrayDeque<Endpoint> ready = new ArrayDeque<>();
  private final List<Endpoint> retiring = new ArrayList<>();

  /** Endpoints whose {@link WriteFence} waits for the peer's answer. */
  private final List<Endpoint> fencing = new ArrayList<>();

  private final WorkRequestSlots slots;

  private final WorkRequestBatch wrBatch;
  private final WorkCompletionBatch wcBatch;

  private boolean portActive = true;
  private boolean cqBroken;
  private boolean closing;
  private Throwable closeCause;
  private Promise<Void> closePromise;
  private long lastPollNanos = -1;

  /** The clock at the start of the current duty cycle. */
  private long cycleNanos;

  /** Endpoint unused time before retiring, 0 for never; and when the next check is due. */
  private final long idleEndpointNanos;

  private long nextIdleCheckNanos;

  /**
   * How long an endpoint with work requests in flight may go without a completion: its QPs' timeout
   * x (retry count + 2), one timeout more than RC takes to fail a work request to a peer that is
   * gone. Past it the QP is stuck (rdma_rxe retries forever at retry count 7, and drops packets to
   * a QP that no longer exists without a NAK) and the endpoint is retired.
   */
  private final long stallNanos;

  private long nextStallCheckNanos;

  /**
   * @param index owner index within its context
   * @param config sizes and timings
   * @param localNicPath {@code <local server>@<device>}
   * @param device the opened device (ports)
   * @param pd the device's protection domain (QPs)
   * @param cq this owner's own CQ
   * @param channel sends active handshakes
   * @param clock monotonic clock (fake in tests)
   * @param proxy this owner's command queue
   * @param directory the context's owner directory, told of this owner's QPs (for QP async events)
   * @param backoff when a refused handshake is tried again
   * @param verbsExecutor where QP create, modify and destroy run ({@link QpJobs}); null to run them
   *     on the owner's thread (tests with fake verbs that never block)
   */
  Owner(
      int index,
      OwnerConfig config,
      NicPath localNicPath,
      VerbsContext device,
      ProtectionDomain pd,
      CompletionQueue cq,
      HandshakeChannel channel,
      NanoClock clock,
      OwnerProxy proxy,
      OwnerDirectory directory,
      HandshakeBackoff backoff,
      Executor verbsExecutor) {
    this.index = index;
    this.config = config;
    this.localNicPath = localNicPath;
    this.pd = pd;
    this.cq = cq;
    this.clock = clock;
    this.proxy = proxy;
    this.directory = directory;
    this.store = new EndpointStore(config.endpointStoreCapacity());
    this.qpJobs = new QpJobs(verbsExecutor, proxy);
    this.connector =
        new Connector(this, config, localNicPath, device, store, channel, clock, metrics, backoff);
    this.slots = new WorkRequestSlots(cq.capacity());
    this.wrBatch =
        WorkRequestBatch.allocate(Math.min(config.pollBatchSize(), config.maxOutstandingPerQp()));
    this.wcBatch = WorkCompletionBatch.allocate(config.pollBatchSize());
    this.idleEndpointNanos = config.idleEndpoint().toNanos();
    this.cycleNanos = clock.nanoTime();
    this.nextIdleCheckNanos = cycleNanos + idleEndpointNanos / IDLE_CHECKS_PER_PERIOD;
    this.stallNanos =
        new RtsAttributes(0, config.qpTimeout(), 0, 0).timeoutNanos()
            * (config.qpRetryCount() + 2L);
    this.nextStallCheckNanos = cycleNanos + stallNanos / STALL_CHECKS_PER_PERIOD;
  }

  // ---------------------------------------------------------------- duty cycle

  /**
   * One duty cycle: drain commands (bounded), poll the CQ, post what credits allow, check
   * deadlines.
   *
   * @return how much was done (commands, completions, posts, expiries); 0 when idle
   */
  int doWork() {
    cycleNanos = clock.nanoTime();
    int work = drainQueues();
    work += pollCompletions();
    work += postReady();
    work += checkDeadlines();
    work += retireUnused();
    work += retireStalled();
    if (closing) {
      completeCloseIfDrained();
    }
    metrics.endpointsAlive(store.size());
    return work;
  }

  /**
   * @return true while work requests are in flight or handshakes pending: keep polling eagerly
   */
  boolean hasWorkInFlight() {
    return slots.inFlight() > 0 || connector.hasHandshakesPending() || !retiring.isEmpty();
  }

  /**
   * Arms the CQ for one notification before the owner sleeps. A CQ that cannot be armed would never
   * wake the owner again: it is a CQ in error.
   */
  void armCompletionNotification() {
    if (cqBroken) {
      return;
    }
    if (cq.requestNotify() == PostStatus.CQ_ERROR) {
      onCqError("could not be armed for notification");
    }
  }

  /** Takes queued commands, then slices, each up to the drain limit per cycle. */
  private int drainQueues() {
    int limit = config.commandDrainLimit();
    int n = 0;
    OwnerCommand command;
    while (n < limit && (command = proxy.pollCommand()) != null) {
      n++;
      command.execute(this);
    }
    int taken = 0;
    Slice slice;
    while (taken < limit && (slice = proxy.pollSlice()) != null) {
      taken++;
      acceptSlice(slice);
    }
    return n + taken;
  }

  // ---------------------------------------------------------------- slices

  private void acceptSlice(Slice slice) {
    metrics.sliceAccepted();
    if (closing) {
      complete(slice, SliceStatus.ENGINE_CLOSED, closeCause);
      return;
    }
    if (slice.callback().isAbandoned()) {
      complete(slice, SliceStatus.ABANDONED, null);
      return;
    }
    if (!portActive || cqBroken) {
      complete(
          slice,
          SliceStatus.RAIL_DOWN,
          new VteException(
              ErrorCode.DEVICE_UNAVAILABLE,
              (cqBroken ? "CQ of owner " + index + " is in error on " : "port down on ")
                  + localNicPath));
      return;
    }
    NicPath path = slice.rail().peerNicPath();
    Endpoint ep = store.get(path);
    if (ep == null) {
      connector.startActive(path, slice);
      return;
    }
    ep.pending.add(slice);
    ep.lastUsedNanos = cycleNanos;
    if (ep.state() == EndpointState.CONNECTED) {
      markReady(ep);
    }
  }

  /** Puts a just-connected endpoint with queued slices in line for posting. */
  void markReadyIfPending(Endpoint ep) {
    if (!ep.pending.isEmpty()) {
      markReady(ep);
    }
  }

  private void markReady(Endpoint ep) {
    if (!ep.inReadyList) {
      ep.inReadyList = true;
      ready.addLast(ep);
    }
  }

  private int postReady() {
    int posted = 0;
    int rounds = ready.size();
    while (rounds-- > 0 && slots.hasFree()) {
      Endpoint ep = ready.pollFirst();
      ep.inReadyList = false;
      if (ep.state() != EndpointState.CONNECTED || ep.awaitingPeerReady) {
        continue;
      }
      posted += postEndpoint(ep);
      // Still work and QP room: it waits for credits. Without QP room a completion re-marks it.
      if (ep.state() == EndpointState.CONNECTED && !ep.pending.isEmpty() && hasQpRoom(ep)) {
        markReady(ep);
      }
    }
    return posted;
  }

  private boolean hasQpRoom(Endpoint ep) {
    for (int q = 0; q < ep.qps.length; q++) {
      if (ep.qpOutstanding[q] < config.maxOutstandingPerQp()) {
        return true;
      }
    }
    return false;
  }

  private int postEndpoint(Endpoint ep) {
    int posted = 0;
    int qps = ep.qps.length;
    for (int k = 0; k < qps && slots.hasFree() && !ep.pending.isEmpty(); k++) {
      int q = ep.nextQp;
      ep.nextQp = q + 1 == qps ? 0 : q + 1;
      // Spread what is queued evenly over the QPs not yet visited this round.
      int share = (ep.pending.size() + (qps - k) - 1) / (qps - k);
      int room = Math.min(share, config.maxOutstandingPerQp() - ep.qpOutstanding[q]);
      wrBatch.clear();
      Slice slice;
      while (room > 0
          && slots.hasFree()
          && !wrBatch.isFull()
          && (slice = ep.pending.pollFirst()) != null) {
        if (slice.callback().isAbandoned()) {
          complete(slice, SliceStatus.ABANDONED, null);
          continue;
        }
        wrBatch.add(
            slots.acquire(slice, ep, q),
            slice.opcode(),
            WrFlags.SIGNALED,
            slice.localAddress(),
            slice.length(),
            slice.lkey(),
            slice.remoteAddress(),
            slice.rkey());
        room--;
      }
      int size = wrBatch.size();
      if (size == 0) {
        continue;
      }
      QueuePair qp = ep.qps[q];
      int rc = qp.postSend(wrBatch);
      int accepted = rc == PostStatus.OK ? size : Math.max(0, wrBatch.badIndex());
      if (ep.outstanding == 0) {
        ep.progressNanos = cycleNanos;
      }
      ep.qpOutstanding[q] += accepted;
      ep.outstanding += accepted;
      posted += accepted;
      metrics.slicesPosted(accepted);
      if (rc != PostStatus.OK) {
        VteException cause =
            new VteException(
                ErrorCode.TRANSFER_FAILED,
                "posting to QP "
                    + qp.qpNum()
                    + " of "
                    + ep.path
                    + " failed: "
                    + PostStatus.name(rc));
        for (int i = accepted; i < size; i++) {
          int slot = slots.slotOf(wrBatch.wrId(i));
          Slice failed = slots.slice(slot);
          slots.release(slot);
          complete(failed, SliceStatus.POST_FAILED, cause);
        }
        retire(ep, SliceStatus.ENDPOINT_RETIRED, cause);
        return posted;
      }
    }
    return posted;
  }

  /**
   * Ends a slice: counted, its callback told once (a throwing callback is counted, not propagated).
   */
  void complete(Slice slice, int status, Throwable cause) {
    metrics.sliceEnded(status == SliceStatus.OK);
    try {
      slice.callback().onSliceDone(slice, status, cause);
    } catch (RuntimeException e) {
      metrics.callbackError();
    }
  }

  /**
   * Ends a slice that was posted on {@code ep} and did not complete: a WRITE waits for the
   * endpoint's fence (asked now if it is the first), anything else ends at once.
   */
  private void endPosted(Endpoint ep, Slice slice, int status, Throwable cause) {
    if (slice.opcode() != WrOpcode.RDMA_WRITE || status == SliceStatus.ENGINE_CLOSED || closing) {
      complete(slice, status, cause);
      return;
    }
    WriteFence fence = ep.fence;
    if (fence == null) {
      fence = new WriteFence();
      ep.fence = fence;
      fencing.add(ep);
      metrics.writeFenceAsked();
      connector.disconnect(ep).onComplete(ar -> proxy.fenced(ep, ar));
    }
    if (fence.pending()) {
      fence.hold(slice, status, cause);
    } else if (fence.confirmed()) {
      complete(slice, status, cause);
    } else {
      complete(slice, SliceStatus.FENCE_FAILED, fence.failure());
    }
  }

  /**
   * The peer answered the disconnect of {@code ep} (or could not be asked): its held WRITEs end as
   * they ended on the wire when it confirmed, else FENCE_FAILED with why.
   */
  void onFenced(Endpoint ep, AsyncResult<ConnectReply> answer) {
    if (!fencing.remove(ep)) {
      return; // the owner closed meanwhile and ended the held slices
    }
    Throwable failure = fenceFailure(ep, answer);
    if (failure == null) {
      metrics.writeFenceConfirmed();
    }
    for (WriteFence.Held h : ep.fence.settle(failure)) {
      if (failure == null) {
        complete(h.slice(), h.status(), h.cause());
      } else {
        complete(h.slice(), SliceStatus.FENCE_FAILED, failure);
      }
    }
  }

  /**
   * @return null when the peer confirmed the disconnect, else a typed cause: the channel's
   *     (PEER_UNREACHABLE, TIMED_OUT) or TRANSFER_FAILED for any other answer
   */
  private static Throwable fenceFailure(Endpoint ep, AsyncResult<ConnectReply> answer) {
    if (answer.succeeded() && answer.result().getStatus() == ConnectStatus.DISCONNECTED) {
      return null;
    }
    String what =
        "a WRITE posted to "
            + ep.path
            + " may still land there: the peer did not confirm that it retired its end of the"
            + " connection (";
    if (answer.failed()) {
      Throwable e = answer.cause();
      ErrorCode code =
          e instanceof VteException ? ((VteException) e).code() : ErrorCode.PEER_UNREACHABLE;
      return new VteException(code, what + e.getMessage() + ")", e);
    }
    return new VteException(
        ErrorCode.TRANSFER_FAILED,
        what + answer.result().getStatus() + " " + answer.result().getReason() + ")");
  }

  /** Ends the slices held by fences still waiting (closing: no retry follows). */
  private void endFences(Throwable cause) {
    for (Endpoint ep : fencing) {
      for (WriteFence.Held h : ep.fence.settle(cause)) {
        complete(h.slice(), SliceStatus.ENGINE_CLOSED, cause);
      }
    }
    fencing.clear();
  }

  // ---------------------------------------------------------------- completions

  private int pollCompletions() {
    long now = clock.nanoTime();
    if (lastPollNanos >= 0) {
      metrics.pollGap(now - lastPollNanos);
    }
    lastPollNanos = slots.inFlight() > 0 ? now : -1;
    if (cqBroken) {
      return 0;
    }
    cq.progress(); // soft verbs: this owner reads its QPs' responses, no NIC thread is woken
    int n = cq.poll(wcBatch);
    if (n < 0) {
      if (n == PostStatus.CQ_ERROR) {
        onCqError("overflowed");
        return 1;
      }
      return 0;
    }
    for (int i = 0; i < n; i++) {
      dispatch(wcBatch.wrId(i), wcBatch.status(i));
    }
    return n;
  }

  private void dispatch(long wrId, int status) {
    int slot = slots.slotOf(wrId);
    if (slot < 0) {
      metrics.strayCompletion();
      return;
    }
    Slice slice = slots.slice(slot);
    Endpoint ep = slots.endpoint(slot);
    int q = slots.qp(slot);
    slots.release(slot);
    ep.qpOutstanding[q]--;
    ep.outstanding--;
    ep.lastUsedNanos = cycleNanos;
    ep.progressNanos = cycleNanos;
    if (status == WcStatus.SUCCESS.code()) {
      complete(slice, SliceStatus.OK, null);
    } else if (status == WcStatus.WR_FLUSH_ERR.code()) {
      boolean retired = ep.state() == EndpointState.RETIRED;
      endPosted(
          ep,
          slice,
          retired ? ep.retireStatus : SliceStatus.ENDPOINT_RETIRED,
          retired ? ep.retireCause : null);
      retire(ep, SliceStatus.ENDPOINT_RETIRED, null);
    } else if (status == WcStatus.REM_ABORT_ERR.code()) {
      // The peer's QP is gone (it evicted or closed its end): nothing wrong with the slice, which
      // goes again on a fresh endpoint, as a flushed one does.
      VteException cause =
          new VteException(
              ErrorCode.PEER_UNREACHABLE,
              "the peer closed its end of " + ep.path + "; reconnecting");
      endPosted(ep, slice, SliceStatus.ENDPOINT_RETIRED, cause);
      retire(ep, SliceStatus.ENDPOINT_RETIRED, cause);
    } else {
      endPosted(ep, slice, status, null);
      retire(
          ep,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.TRANSFER_FAILED,
              "work completion " + WcStatus.of(status) + " on " + ep.path));
    }
    if (ep.state() == EndpointState.RETIRED) {
      if (ep.outstanding == 0 && retiring.remove(ep)) {
        destroy(ep);
      }
    } else if (ep.state() == EndpointState.CONNECTED && !ep.pending.isEmpty()) {
      markReady(ep);
    } else if (store.isOverCapacity() && ep.isIdle()) {
      trimIdle();
    }
  }

  // ---------------------------------------------------------------- passive handshake

  /**
   * Answers a peer's connect request: refused while this owner takes no connections, else the
   * connector's. A disconnect goes to the connector in any state.
   */
  void onPassiveConnect(ConnectRequest request, Promise<ConnectReply> reply) {
    if (request.getDisconnectGeneration() != 0) {
      // answered whatever the owner's state: closing or port down, it retired its endpoints
      connector.onPeerDisconnect(request, reply);
      return;
    }
    if (closing) {
      reply.complete(
          ConnectMessages.reject(
              localNicPath, ConnectStatus.SHUTTING_DOWN, localNicPath + " is closing"));
      return;
    }
    if (!portActive || cqBroken) {
      reply.complete(
          ConnectMessages.reject(
              localNicPath,
              ConnectStatus.DEVICE_DOWN,
              "port " + config.port() + " of " + localNicPath + " is down"));
      return;
    }
    connector.onPassiveConnect(request, reply);
  }

  // ---------------------------------------------------------------- QPs

  /**
   * @return a new endpoint for {@code path}, its QPs not made yet ({@link #prepareQps})
   */
  Endpoint newEndpoint(NicPath path, int qpCount, long generation) {
    Endpoint ep = new Endpoint(path, generation, qpCount);
    ep.lastUsedNanos = cycleNanos;
    return ep;
  }

  /**
   * Gets the QPs of {@code ep} ready off the owner's thread ({@link QpJobs}): made and moved to
   * INIT when it has none yet, then handed to {@code connect} (null for none), which moves them to
   * RTR and RTS. The owner goes on polling meanwhile. Back on the owner's thread, QPs made are
   * attached and registered for their async events, an endpoint retired meanwhile is destroyed, and
   * {@code done} gets null or the failure; it must check that the endpoint is still the one it
   * meant.
   *
   * @param ep the endpoint
   * @param connect moves the QPs to RTS towards the peer (runs off the owner's thread); or null
   * @param done told the outcome on the owner's thread
   */
  void prepareQps(Endpoint ep, Consumer<QueuePair[]> connect, Consumer<Throwable> done) {
    boolean create = !ep.hasQps();
    QueuePair[] qps = create ? new QueuePair[ep.qps.length] : ep.qps;
    ep.qpJobInFlight = true;
    qpJobs.run(
        () -> {
          if (create) {
            makeQps(qps);
          }
          try {
            if (connect != null) {
              connect.accept(qps);
            }
          } catch (RuntimeException e) {
            return new Prepared(qps, e);
          }
          return new Prepared(qps, null);
        },
        (prepared, failure) -> {
          ep.qpJobInFlight = false;
          if (create && prepared != null) {
            attach(ep, prepared.qps);
          }
          if (ep.destroyDeferred) {
            ep.destroyDeferred = false;
            destroy(ep);
          }
          done.accept(failure != null ? failure : prepared.failure);
        },
        // The owner is gone (closed) when the job is back: nothing will destroy an endpoint
        // retired meanwhile, so the job's QPs go here (close is idempotent: a stored endpoint's
        // QPs are destroyed again by destroyRemaining, harmlessly).
        prepared -> closeAll(prepared.qps));
  }

  /** QPs a job got ready, and the failure of their connect step, if any. */
  private record Prepared(QueuePair[] qps, RuntimeException failure) {}

  /**
   * Creates {@code qps.length} QPs in INIT into {@code qps}. Off the owner's thread.
   *
   * @throws VerbsException when the device cannot create them (none is left behind)
   */
  private void makeQps(QueuePair[] qps) {
    try {
      for (int i = 0; i < qps.length; i++) {
        qps[i] = pd.createQp(new QpInitAttributes(cq, cq, config.maxOutstandingPerQp(), 1, 0));
        qps[i].toInit(config.port(), AccessFlags.ALL_REMOTE);
      }
    } catch (VerbsException e) {
      closeAll(qps);
      throw e;
    }
  }

  private static void closeAll(QueuePair[] qps) {
    for (QueuePair qp : qps) {
      if (qp != null) {
        qp.close();
      }
    }
  }

  /** Gives {@code ep} its QPs and registers them for their async events. */
  private void attach(Endpoint ep, QueuePair[] qps) {
    ep.attach(qps);
    for (QueuePair qp : qps) {
      endpointsByQp.put(qp.qpNum(), ep);
      directory.qpCreated(qp.qpNum(), this);
    }
  }

  // ---------------------------------------------------------------- retire, faults, close

  /**
   * Makes room in a full store for one more endpoint by evicting the least recently used idle one.
   * When every endpoint is busy none is evicted and the store goes over its capacity for now (a
   * busy endpoint has work queued or in flight, so their number is bounded by the owner's work): no
   * request fails for want of room, and {@link #trimIdle()} brings the store back down as they go
   * idle.
   */
  void makeRoom() {
    if (!store.isFull()) {
      return;
    }
    Endpoint victim = store.evictionCandidate();
    if (victim == null) {
      metrics.endpointStoreOverflow();
      return;
    }
    evict(victim);
  }

  /** Evicts idle endpoints, least recently used first, while the store is over its capacity. */
  private void trimIdle() {
    Endpoint victim;
    while (store.isOverCapacity() && (victim = store.evictionCandidate()) != null) {
      evict(victim);
    }
  }

  /**
   * Retires the idle endpoints no slice used for {@code idleEndpoint} (checked a few times per
   * period): their QPs are destroyed and their store slots freed; the next slice to that peer
   * device connects again.
   *
   * @return how many it retired
   */
  private int retireUnused() {
    if (idleEndpointNanos == 0 || cycleNanos - nextIdleCheckNanos < 0) {
      return 0;
    }
    nextIdleCheckNanos = cycleNanos + idleEndpointNanos / IDLE_CHECKS_PER_PERIOD;
    int retired = 0;
    for (Endpoint ep : store.snapshot()) {
      if (ep.isIdle() && cycleNanos - ep.lastUsedNanos >= idleEndpointNanos) {
        metrics.endpointIdleRetired();
        retire(ep, SliceStatus.ENDPOINT_RETIRED, null);
        retired++;
      }
    }
    return retired;
  }

  /**
   * Retires the connected endpoints whose work requests in flight saw no completion for {@link
   * #stallNanos} (checked a few times per period): their QPs neither deliver nor fail, so their
   * slices are flushed and go again, on a fresh endpoint or another rail, instead of waiting for
   * their request's deadline.
   *
   * @return how many it retired
   */
  private int retireStalled() {
    if (cycleNanos - nextStallCheckNanos < 0) {
      return 0;
    }
    nextStallCheckNanos = cycleNanos + stallNanos / STALL_CHECKS_PER_PERIOD;
    if (slots.inFlight() == 0) {
      return 0;
    }
    int retired = 0;
    for (Endpoint ep : store.snapshot()) {
      long quiet = cycleNanos - ep.progressNanos;
      if (ep.state() == EndpointState.CONNECTED && ep.outstanding > 0 && quiet >= stallNanos) {
        metrics.endpointStalled();
        retire(
            ep,
            SliceStatus.ENDPOINT_RETIRED,
            new VteException(
                ErrorCode.PEER_UNREACHABLE,
                "no work request to "
                    + ep.path
                    + " completed for "
                    + quiet / 1_000_000
                    + " ms with "
                    + ep.outstanding
                    + " in flight, past the QPs' timeout x (retry count + 2): its QP is stuck or"
                    + " the peer's is gone"));
        retired++;
      }
    }
    return retired;
  }

  private void evict(Endpoint victim) {
    metrics.endpointEvicted();
    retire(victim, SliceStatus.ENDPOINT_RETIRED, null);
  }

  /**
   * Takes an endpoint out of service: QPs to ERR (in-flight work flushes and is completed with
   * {@code status}), queued slices completed with {@code status}, removed from the store (only if
   * it is still the stored one). Its QPs are destroyed once every flush is in, or at the flush
   * deadline.
   */
  void retire(Endpoint ep, int status, Throwable cause) {
    if (ep.isDead()) {
      return;
    }
    ep.moveTo(EndpointState.RETIRED);
    ep.retireStatus = status;
    ep.retireCause = cause;
    connector.forget(ep);
    if (store.remove(ep.path, ep)) {
      metrics.wireVersionEnded(ep.path);
    }
    metrics.endpointRetired();
    // A QP job in flight means nothing was posted yet; the job's return destroys the QPs.
    if (ep.hasQps() && !ep.qpJobInFlight) {
      for (QueuePair qp : ep.qps) {
        try {
          qp.toError();
        } catch (VerbsException e) {
          // Already destroyed or in ERR: its work flushes or is accounted for at the deadline.
        }
      }
    }
    failPending(ep, status, cause);
    if (ep.outstanding == 0) {
      destroy(ep);
    } else {
      ep.flushDeadlineNanos = clock.nanoTime() + config.flushDeadline().toNanos();
      retiring.add(ep);
    }
  }

  /** Completes every slice queued on {@code ep} with {@code status}. */
  void failPending(Endpoint ep, int status, Throwable cause) {
    Slice slice;
    while ((slice = ep.pending.pollFirst()) != null) {
      complete(slice, status, cause);
    }
  }

  /**
   * Forgets an endpoint's QPs and destroys them off the owner's thread; while a QP job of the
   * endpoint is in flight, once it is back.
   */
  void destroy(Endpoint ep) {
    if (ep.qpJobInFlight) {
      ep.destroyDeferred = true;
      return;
    }
    if (!ep.hasQps()) {
      return;
    }
    QueuePair[] qps = ep.qps.clone();
    ep.qpsDestroyed();
    for (QueuePair qp : qps) {
      endpointsByQp.remove(qp.qpNum(), ep);
      directory.qpDestroyed(qp.qpNum(), this);
    }
    qpJobs.run(
        () -> {
          closeAll(qps);
          return null;
        },
        null,
        null);
  }

  private int checkDeadlines() {
    int expired = connector.checkDeadlines();
    if (retiring.isEmpty()) {
      return expired;
    }
    long now = clock.nanoTime();
    for (int i = retiring.size() - 1; i >= 0; i--) {
      Endpoint ep = retiring.get(i);
      if (now - ep.flushDeadlineNanos >= 0) {
        expired++;
        retiring.remove(i);
        forceFlush(ep);
        destroy(ep);
      }
    }
    return expired;
  }

  /** Accounts for every work request of {@code ep} still in flight, as if it had flushed. */
  private void forceFlush(Endpoint ep) {
    int n = 0;
    for (int slot = 0; slot < slots.capacity(); slot++) {
      if (slots.endpoint(slot) == ep) {
        Slice slice = slots.slice(slot);
        ep.qpOutstanding[slots.qp(slot)]--;
        ep.outstanding--;
        slots.release(slot);
        endPosted(ep, slice, ep.retireStatus, ep.retireCause);
        n++;
      }
    }
    metrics.forcedFlushes(n);
  }

  private void retireAll(int status, Throwable cause) {
    for (Endpoint ep : store.snapshot()) {
      retire(ep, status, cause);
    }
  }

  /** A QP of this owner hit a fatal error: retire its endpoint. */
  void onQpFatal(int qpNum) {
    Endpoint ep = endpointsByQp.get(qpNum);
    metrics.qpFatal();
    if (ep != null) {
      retire(
          ep,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.TRANSFER_FAILED, "QP " + qpNum + " of " + ep.path + " hit a fatal error"));
    }
  }

  /** A port went down: retire every endpoint on it, refuse new work until it is back. */
  void onPortDown(int port) {
    if (port != config.port()) {
      return;
    }
    portActive = false;
    retireAll(
        SliceStatus.RAIL_DOWN,
        new VteException(
            ErrorCode.DEVICE_UNAVAILABLE, "port " + port + " of " + localNicPath + " went down"));
  }

  /** A port came back: accept work again. */
  void onPortUp(int port) {
    if (port == config.port()) {
      portActive = true;
    }
  }

  /** The device died: retire everything and refuse new work. */
  void onDeviceFatal() {
    portActive = false;
    retireAll(
        SliceStatus.RAIL_DOWN,
        new VteException(ErrorCode.DEVICE_UNAVAILABLE, localNicPath + " died"));
  }

  /**
   * The CQ is in error: it overflowed (credits make this impossible) or could not be armed.
   * Counted, and the owner stops using the CQ.
   *
   * @param what what the CQ did, for the cause
   */
  void onCqError(String what) {
    if (cqBroken) {
      return;
    }
    cqBroken = true;
    metrics.cqError();
    VteException cause =
        new VteException(
            ErrorCode.INTERNAL, "CQ of owner " + index + " of " + localNicPath + " " + what);
    retireAll(SliceStatus.ENDPOINT_RETIRED, cause);
    // No flush will come from a CQ in error: account for everything now.
    flushAndDestroyRetiring();
  }

  /**
   * Completes every in-flight WR of the retiring endpoints now (no flush will come) and destroys
   * them.
   */
  private void flushAndDestroyRetiring() {
    for (Endpoint ep : new ArrayList<>(retiring)) {
      forceFlush(ep);
      destroy(ep);
    }
    retiring.clear();
  }

  /**
   * Begins closing: every endpoint retires (slices {@code ENGINE_CLOSED}), new work is refused; the
   * promise completes once every work request is accounted for.
   */
  void beginClose(Promise<Void> done) {
    if (closePromise != null) {
      closePromise.future().onComplete(done);
      return;
    }
    closing = true;
    closePromise = done;
    closeCause = new VteException(ErrorCode.ENGINE_CLOSED, localNicPath + " is closing");
    endFences(closeCause);
    retireAll(SliceStatus.ENGINE_CLOSED, closeCause);
    completeCloseIfDrained();
  }

  /**
   * The owner's verticle is stopping although the owner was not closed first (e.g. {@code
   * vertx.close()} while the engine is open): nothing will poll the CQ again, so every slice it
   * holds, queued or posted, ends now with ENGINE_CLOSED, exactly once, and its retired QPs are
   * destroyed.
   */
  void abandon() {
    if (closeCause == null) {
      closeCause = new VteException(ErrorCode.ENGINE_CLOSED, localNicPath + " stopped with Vert.x");
    }
    closing = true;
    endFences(closeCause);
    retireAll(SliceStatus.ENGINE_CLOSED, closeCause);
    flushAndDestroyRetiring();
    if (closePromise != null) {
      closePromise.tryComplete();
    }
  }

  private void completeCloseIfDrained() {
    if (closePromise != null && retiring.isEmpty() && slots.inFlight() == 0) {
      closePromise.tryComplete();
    }
  }

  /** Destroys whatever QPs remain; called after the owner stopped running (context close). */
  void destroyRemaining() {
    for (Endpoint ep : store.snapshot()) {
      store.remove(ep.path, ep);
      // The verbs executor has stopped: no job of it runs any more, and none will come back.
      ep.qpJobInFlight = false;
      destroy(ep);
    }
    for (Endpoint ep : retiring) {
      ep.qpJobInFlight = false;
      destroy(ep);
    }
    retiring.clear();
  }

  // ---------------------------------------------------------------- accessors

  /**
   * @return this owner's command queue
   */
  OwnerProxy proxy() {
    return proxy;
  }

  /**
   * @return this owner's CQ
   */
  CompletionQueue cq() {
    return cq;
  }

  /**
   * @return this owner's connector (handshake replies come back to it)
   */
  Connector connector() {
    return connector;
  }

  /**
   * @return this owner's metrics
   */
  OwnerMetrics metrics() {
    return metrics;
  }

  /**
   * @return owner index within its context
   */
  int index() {
    return index;
  }

  /**
   * @return the stored endpoint for a peer NIC path, {@code <server>@<device>}, or null (tests)
   */
  Endpoint endpoint(String path) {
    return store.get(NicPath.parse(path));
  }

  /**
   * @return number of stored endpoints
   */
  int endpointCount() {
    return store.size();
  }

  /**
   * @return work requests in flight
   */
  int outstanding() {
    return slots.inFlight();
  }

  /**
   * @return bytes of the work requests in flight
   */
  long bytesOutstanding() {
    return slots.bytesInFlight();
  }

  /**
   * @return endpoints retired but still waiting for flushes
   */
  int retiringCount() {
    return retiring.size();
  }
}
