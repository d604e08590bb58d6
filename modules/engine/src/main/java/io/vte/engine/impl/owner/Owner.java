package io.vte.engine.impl.owner;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.handshake.HandshakeChannel;
import io.vte.engine.impl.owner.connect.ConnectMessages;
import io.vte.engine.impl.owner.connect.Connector;
import io.vte.engine.impl.owner.connect.ConnectorHost;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointKey;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.owner.endpoint.EndpointStore;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
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
 * <p>The owner accepts slices, polls its CQ, retires endpoints and handles device events; its parts
 * post ({@link WorkPoster}), handle QPs ({@link EndpointQps}), fence failed WRITEs ({@link
 * WriteFences}), keep the store in bounds ({@link EndpointSweeps}) and connect endpoints ({@link
 * Connector}, which sees the owner only as its {@link ConnectorHost}).
 */
final class Owner implements ConnectorHost {

  /** Most QPs one endpoint may have (both sides). */
  static final int MAX_QPS_PER_ENDPOINT = ConnectMessages.MAX_QPS_PER_ENDPOINT;

  private final int index;
  private final OwnerConfig config;
  private final NicPath localNicPath;
  private final CompletionQueue cq;
  private final NanoClock clock;
  private final OwnerProxy proxy;
  private final OwnerMetrics metrics = new OwnerMetrics();
  private final EndpointStore store;
  private final Connector connector;
  private final EndpointQps qps;
  private final WorkRequestSlots slots;
  private final WorkPoster poster;
  private final WriteFences fences;
  private final EndpointSweeps sweeps;
  private final Retirements retirements;
  private final WorkCompletionBatch wcBatch;

  private boolean portActive = true;
  private boolean cqBroken;
  private boolean closing;
  private Throwable closeCause;
  private Promise<Void> closePromise;
  private long lastPollNanos = -1;

  /** The clock at the start of the current duty cycle. */
  private long cycleNanos;

  /**
   * @param index owner index within its context
   * @param config sizes and timings
   * @param localNicPath {@code <local server>@<device>}
   * @param device the opened device (ports)
   * @param pd the device's protection domain (QPs)
   * @param cq this owner's own CQ
   * @param channel sends active handshakes
   * @param clock monotonic clock (fake in tests)
   * @param proxy this owner's queues
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
    this.cq = cq;
    this.clock = clock;
    this.proxy = proxy;
    this.cycleNanos = clock.nanoTime();
    this.store = new EndpointStore(config.endpointStoreCapacity());
    this.qps = new EndpointQps(this, config, pd, cq, directory, new QpJobs(verbsExecutor, proxy));
    this.connector =
        new Connector(this, config, localNicPath, device, store, channel, clock, metrics, backoff);
    this.slots = new WorkRequestSlots(cq.capacity());
    this.poster =
        new WorkPoster(this, slots, metrics, config.maxOutstandingPerQp(), config.pollBatchSize());
    this.fences = new WriteFences(this, metrics, connector::disconnect);
    this.retirements =
        new Retirements(this, config, store, metrics, clock, qps, connector, fences, slots);
    this.sweeps = new EndpointSweeps(this, store, metrics, config, cycleNanos);
    this.wcBatch = WorkCompletionBatch.allocate(config.pollBatchSize());
  }

  /**
   * One duty cycle: drain commands and slices (bounded), poll the CQ, post what credits allow,
   * check deadlines.
   *
   * @return how much was done (commands, slices, completions, posts, expiries); 0 when idle
   */
  int doWork() {
    cycleNanos = clock.nanoTime();
    int work = drainQueues();
    work += pollCompletions();
    work += poster.postReady(cycleNanos);
    work += connector.checkDeadlines() + retirements.expire();
    work += sweeps.retireUnused(cycleNanos);
    work += sweeps.retireStalled(cycleNanos, slots.inFlight());
    if (closing) {
      completeCloseIfDrained();
    }
    metrics.endpointsAlive(store.size());
    return work;
  }

  /** True while work requests are in flight or handshakes pending: keep polling eagerly. */
  boolean hasWorkInFlight() {
    return slots.inFlight() > 0 || connector.hasHandshakesPending() || retirements.count() > 0;
  }

  /**
   * Arms the CQ for one notification before the owner sleeps. A CQ that cannot be armed would never
   * wake the owner again: it is a CQ in error.
   */
  void armCompletionNotification() {
    if (!cqBroken && cq.requestNotify() == PostStatus.CQ_ERROR) {
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
    ep.queue(slice, cycleNanos);
    if (ep.state() == EndpointState.CONNECTED) {
      poster.markReady(ep);
    }
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

  /** The peer answered the disconnect that fences {@code ep} ({@link WriteFences#onFenced}). */
  void onFenced(Endpoint ep, AsyncResult<ConnectReply> answer) {
    fences.onFenced(ep, answer);
  }

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
    ep.completed(q, cycleNanos);
    if (status == WcStatus.SUCCESS.code()) {
      complete(slice, SliceStatus.OK, null);
    } else {
      retirements.failedCompletion(ep, slice, status);
    }
    if (ep.state() == EndpointState.RETIRED) {
      retirements.completedWhileRetired(ep);
    } else if (ep.state() == EndpointState.CONNECTED && ep.hasPending()) {
      poster.markReady(ep);
    } else if (store.isOverCapacity() && ep.isIdle()) {
      sweeps.trimIdle();
    }
  }

  /** Answers a peer's connect request ({@link PassiveOpen#onRequest}). */
  void onPassiveConnect(ConnectRequest request, Promise<ConnectReply> reply) {
    ConnectStatus refusal =
        closing
            ? ConnectStatus.SHUTTING_DOWN
            : !portActive || cqBroken ? ConnectStatus.DEVICE_DOWN : null;
    connector.passive().onRequest(request, reply, refusal);
  }

  @Override
  public void makeRoom() {
    sweeps.makeRoom();
  }

  @Override
  public Endpoint newEndpoint(EndpointKey key, int qpCount, long generation) {
    return new Endpoint(key, generation, qpCount, cycleNanos);
  }

  @Override
  public void prepareQps(Endpoint ep, Consumer<QueuePair[]> connect, Consumer<Throwable> done) {
    qps.prepare(ep, connect, done);
  }

  @Override
  public void markReadyIfPending(Endpoint ep) {
    if (ep.hasPending()) {
      poster.markReady(ep);
    }
  }

  @Override
  public void onAnswer(Future<ConnectReply> reply, Endpoint ep, long generation) {
    reply.onComplete(ar -> proxy.handshakeReply(ep, generation, ar));
  }

  @Override
  public void retire(Endpoint ep, int status, Throwable cause) {
    retirements.retire(ep, status, cause);
  }

  @Override
  public void failPending(Endpoint ep, int status, Throwable cause) {
    Slice slice;
    while ((slice = ep.pollPending()) != null) {
      complete(slice, status, cause);
    }
  }

  @Override
  public void destroy(Endpoint ep) {
    qps.destroy(ep);
  }

  private void retireAll(int status, Throwable cause) {
    for (Endpoint ep : store.snapshot()) {
      retire(ep, status, cause);
    }
  }

  /** A QP of this owner hit a fatal error: retire its endpoint. */
  void onQpFatal(int qpNum) {
    Endpoint ep = qps.endpointOf(qpNum);
    metrics.qpFatal();
    if (ep != null) {
      retire(
          ep,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.TRANSFER_FAILED,
              "QP " + qpNum + " of " + ep.path() + " hit a fatal error"));
    }
  }

  /** A port went down: retire every endpoint on it, refuse new work until it is back. */
  void onPortDown(int port) {
    if (port != config.port()) {
      return;
    }
    railDown("port " + port + " of " + localNicPath + " went down");
  }

  /** A port came back: accept work again. */
  void onPortUp(int port) {
    if (port == config.port()) {
      portActive = true;
    }
  }

  /** The device died: retire everything and refuse new work. */
  void onDeviceFatal() {
    railDown(localNicPath + " died");
  }

  /** Retires every endpoint with RAIL_DOWN and refuses new work until the port is back. */
  private void railDown(String why) {
    portActive = false;
    retireAll(SliceStatus.RAIL_DOWN, new VteException(ErrorCode.DEVICE_UNAVAILABLE, why));
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
    retirements.flushAll();
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
    fences.close(closeCause);
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
    fences.close(closeCause);
    retireAll(SliceStatus.ENGINE_CLOSED, closeCause);
    retirements.flushAll();
    if (closePromise != null) {
      closePromise.tryComplete();
    }
  }

  private void completeCloseIfDrained() {
    if (closePromise != null && retirements.count() == 0 && slots.inFlight() == 0) {
      closePromise.tryComplete();
    }
  }

  /** Destroys whatever QPs remain; called after the owner stopped running (context close). */
  void destroyRemaining() {
    for (Endpoint ep : store.snapshot()) {
      store.remove(ep);
      qps.destroyAfterStop(ep);
    }
    retirements.destroyAfterStop();
  }

  /** Returns this owner's queues. */
  OwnerProxy proxy() {
    return proxy;
  }

  /** Returns this owner's CQ. */
  CompletionQueue cq() {
    return cq;
  }

  /** Returns this owner's connector (handshake replies come back to it). */
  Connector connector() {
    return connector;
  }

  /** Returns this owner's metrics. */
  OwnerMetrics metrics() {
    return metrics;
  }

  /** Returns the owner's index within its context. */
  int index() {
    return index;
  }

  /** Returns the endpoint slices to a peer NIC path, {@code <server>@<device>}, use, or null. */
  Endpoint endpoint(String path) {
    return store.get(NicPath.parse(path));
  }

  /** Returns the number of stored endpoints. */
  int endpointCount() {
    return store.size();
  }

  /** Returns the number of work requests in flight. */
  int outstanding() {
    return slots.inFlight();
  }

  /** Returns the bytes of the work requests in flight. */
  long bytesOutstanding() {
    return slots.bytesInFlight();
  }

  /** Returns the endpoints retired but still waiting for flushes. */
  int retiringCount() {
    return retirements.count();
  }
}
