package io.vte.engine.impl.owner;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.Slice;
import io.vte.engine.impl.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.QpInfo;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkCompletionBatch;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * One owner: a CQ, the endpoints whose peer NIC path hashes to it, and the duty cycle {@link #doWork()}
 * that drives them. Every method runs on the owner's thread (its event loop, or a test calling
 * {@code doWork()} directly); other threads reach it only through its {@link OwnerProxy}.
 *
 * <p>Work requests in flight are tracked in {@link WorkRequestSlots}, sized to the CQ: a slot is a
 * credit, so the owner never has more signaled work requests in flight than its CQ holds.
 */
final class Owner {

  /** Most QPs one endpoint may have (both sides). */
  static final int MAX_QPS_PER_ENDPOINT = ConnectMessages.MAX_QPS_PER_ENDPOINT;
  /** Store-key suffix of the passive side of a connection of this NIC to itself. */
  static final String LOOPBACK_SUFFIX = "#loopback";

  /**
   * Fraction of the handshake deadline an endpoint told SIMULTANEOUS_OPEN waits for the peer's own request
   * before asking again: the peer's attempt may already have failed (its port went down, or we refused it
   * while ours was down), and then no request is coming.
   */
  private static final int SIMULTANEOUS_OPEN_WAIT_DIVISOR = 10;

  private final int index;
  private final OwnerConfig config;
  private final NicPath localNicPath;
  /** Store key of the passive side of a connection of this NIC to itself (the active side has the path). */
  private final NicPath loopbackKey;
  private final ProtectionDomain pd;
  private final CompletionQueue cq;
  private final HandshakeChannel channel;
  private final NanoClock clock;
  private final OwnerProxy proxy;
  private final ConnectMessages messages;
  private final OwnerDirectory directory;
  private final OwnerMetrics metrics = new OwnerMetrics();

  private final EndpointStore store;
  private final Map<Integer, Endpoint> endpointsByQp = new HashMap<>();
  private final ArrayDeque<Endpoint> ready = new ArrayDeque<>();
  private final List<Endpoint> connecting = new ArrayList<>();
  private final List<Endpoint> retiring = new ArrayList<>();

  private final WorkRequestSlots slots;

  private final WorkRequestBatch wrBatch;
  private final WorkCompletionBatch wcBatch;

  private long nextGeneration;
  private boolean portActive = true;
  private boolean cqBroken;
  private boolean closing;
  private Throwable closeCause;
  private Promise<Void> closePromise;
  private long lastPollNanos = -1;

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
   */
  Owner(int index, OwnerConfig config, NicPath localNicPath, VerbsContext device, ProtectionDomain pd,
      CompletionQueue cq, HandshakeChannel channel, NanoClock clock, OwnerProxy proxy,
      OwnerDirectory directory) {
    this.index = index;
    this.config = config;
    this.localNicPath = localNicPath;
    this.loopbackKey = NicPath.of(localNicPath.server(), localNicPath.device() + LOOPBACK_SUFFIX);
    this.pd = pd;
    this.cq = cq;
    this.channel = channel;
    this.clock = clock;
    this.proxy = proxy;
    this.directory = directory;
    this.store = new EndpointStore(config.endpointStoreCapacity());
    this.messages = new ConnectMessages(localNicPath, device, config.port());
    this.slots = new WorkRequestSlots(cq.capacity());
    this.wrBatch = WorkRequestBatch.allocate(Math.min(config.pollBatchSize(), config.maxOutstandingPerQp()));
    this.wcBatch = WorkCompletionBatch.allocate(config.pollBatchSize());
    // Seeded from the wall clock so a restarted node's generations are newer than its old ones.
    this.nextGeneration = System.currentTimeMillis() << 16;
  }

  // ---------------------------------------------------------------- duty cycle

  /**
   * One duty cycle: drain commands (bounded), poll the CQ, post what credits allow, check deadlines.
   *
   * @return how much was done (commands, completions, posts, expiries); 0 when idle
   */
  int doWork() {
    int work = drainCommands();
    work += pollCompletions();
    work += postReady();
    work += checkDeadlines();
    if (closing) {
      completeCloseIfDrained();
    }
    metrics.endpointsAlive(store.size());
    return work;
  }

  /** @return true while work requests are in flight or handshakes pending: keep polling eagerly */
  boolean hasWorkInFlight() {
    return slots.inFlight() > 0 || !connecting.isEmpty() || !retiring.isEmpty();
  }

  /** Arms the CQ for one notification before the owner sleeps. */
  void armCompletionNotification() {
    cq.requestNotify();
  }

  private int drainCommands() {
    int n = 0;
    Object item;
    while (n < config.commandDrainLimit() && (item = proxy.poll()) != null) {
      n++;
      if (item instanceof Slice) {
        acceptSlice((Slice) item);
      } else {
        ((OwnerCommand) item).execute(this);
      }
    }
    return n;
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
      complete(slice, SliceStatus.RAIL_DOWN, new VteException(ErrorCode.DEVICE_UNAVAILABLE,
          (cqBroken ? "CQ of owner " + index + " is in error on " : "port down on ") + localNicPath));
      return;
    }
    NicPath path = slice.rail().peerNicPath();
    Endpoint ep = store.get(path);
    if (ep == null) {
      ep = startActive(path, slice);
      if (ep == null) {
        return;
      }
    }
    ep.pending.add(slice);
    if (ep.state == EndpointState.CONNECTED) {
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
      if (ep.state != EndpointState.CONNECTED) {
        continue;
      }
      posted += postEndpoint(ep);
      // Still work and QP room: it waits for credits. Without QP room a completion re-marks it.
      if (ep.state == EndpointState.CONNECTED && !ep.pending.isEmpty() && hasQpRoom(ep)) {
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
      while (room > 0 && slots.hasFree() && !wrBatch.isFull() && (slice = ep.pending.pollFirst()) != null) {
        if (slice.callback().isAbandoned()) {
          complete(slice, SliceStatus.ABANDONED, null);
          continue;
        }
        wrBatch.add(slots.acquire(slice, ep, q), slice.opcode(), WrFlags.SIGNALED, slice.localAddress(), slice.length(),
            slice.lkey(), slice.remoteAddress(), slice.rkey());
        room--;
      }
      int size = wrBatch.size();
      if (size == 0) {
        continue;
      }
      QueuePair qp = ep.qps[q];
      int rc = qp.postSend(wrBatch);
      int accepted = rc == PostStatus.OK ? size : Math.max(0, wrBatch.badIndex());
      ep.qpOutstanding[q] += accepted;
      ep.outstanding += accepted;
      posted += accepted;
      metrics.slicesPosted(accepted);
      if (rc != PostStatus.OK) {
        VteException cause = new VteException(ErrorCode.TRANSFER_FAILED, "posting to QP " + qp.qpNum()
            + " of " + ep.path + " failed: " + PostStatus.name(rc));
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

  private void complete(Slice slice, int status, Throwable cause) {
    metrics.sliceEnded(status == SliceStatus.OK);
    try {
      slice.callback().onSliceDone(slice, status, cause);
    } catch (RuntimeException e) {
      metrics.callbackError();
    }
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
    int n = cq.poll(wcBatch);
    if (n < 0) {
      if (n == PostStatus.CQ_ERROR) {
        onCqError();
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
    if (status == WcStatus.SUCCESS.code()) {
      complete(slice, SliceStatus.OK, null);
    } else if (status == WcStatus.WR_FLUSH_ERR.code()) {
      boolean retired = ep.state == EndpointState.RETIRED;
      complete(slice, retired ? ep.retireStatus : SliceStatus.ENDPOINT_RETIRED, retired ? ep.retireCause : null);
      retire(ep, SliceStatus.ENDPOINT_RETIRED, null);
    } else {
      complete(slice, status, null);
      retire(ep, SliceStatus.ENDPOINT_RETIRED, new VteException(ErrorCode.TRANSFER_FAILED,
          "work completion " + WcStatus.of(status) + " on " + ep.path));
    }
    if (ep.state == EndpointState.RETIRED) {
      if (ep.outstanding == 0 && retiring.remove(ep)) {
        destroy(ep);
      }
    } else if (ep.state == EndpointState.CONNECTED && !ep.pending.isEmpty()) {
      markReady(ep);
    }
  }

  // ---------------------------------------------------------------- active handshake

  private Endpoint startActive(NicPath path, Slice first) {
    if (!makeRoom()) {
      complete(first, SliceStatus.HANDSHAKE_FAILED, new VteException(ErrorCode.NO_RAIL,
          "owner " + index + " of " + localNicPath + " has " + store.size()
              + " endpoints, all busy; cannot connect to " + path));
      return null;
    }
    Endpoint ep;
    try {
      ep = createEndpoint(path, config.qpsPerEndpoint());
    } catch (VerbsException e) {
      complete(first, SliceStatus.HANDSHAKE_FAILED, new VteException(ErrorCode.DEVICE_UNAVAILABLE,
          "cannot create QPs on " + localNicPath + " for " + path + ": " + e.getMessage(), e));
      return null;
    }
    ep.state = EndpointState.CONNECTING;
    ep.handshakeStartNanos = clock.nanoTime();
    ep.handshakeDeadlineNanos = ep.handshakeStartNanos + config.handshakeDeadline().toNanos();
    store.put(ep);
    connecting.add(ep);
    metrics.handshakeStarted(true);
    sendRequest(ep);
    return ep;
  }

  /** Sends the connect request of {@code ep} under its current generation; the reply comes back as a command. */
  private void sendRequest(Endpoint ep) {
    ep.reaskAtNanos = 0;
    ConnectRequest request = messages.request(ep);
    long generation = ep.generation;
    Future<ConnectReply> reply;
    try {
      reply = channel.connect(ep.path.server(), request, config.handshakeDeadline());
    } catch (RuntimeException e) {
      reply = Future.failedFuture(e);
    }
    reply.onComplete(ar -> proxy.handshakeReply(ep, generation, ar));
  }

  /**
   * Asks again for an endpoint whose peer said SIMULTANEOUS_OPEN but whose own request never reached us.
   * The new generation makes any late answer to the old request stale. The handshake deadline is not
   * extended.
   */
  private void reask(Endpoint ep) {
    ep.generation = nextGeneration++;
    metrics.handshakeReasked();
    sendRequest(ep);
  }

  /** Handles the reply (or failure) of an active handshake, if it still concerns the same endpoint. */
  void onHandshakeReply(Endpoint ep, long generation, ConnectReply reply, Throwable failure) {
    if (store.get(ep.path) != ep || ep.generation != generation || ep.state != EndpointState.CONNECTING) {
      metrics.staleReplyDropped();
      return;
    }
    if (failure != null) {
      failHandshake(ep, failure instanceof VteException ? failure
          : new VteException(ErrorCode.PEER_UNREACHABLE, "handshake with " + ep.path + " failed: " + failure, failure));
      return;
    }
    ConnectStatus status = reply.getStatus();
    if (status == ConnectStatus.SIMULTANEOUS_OPEN) {
      // The peer keeps the active role and its request should reach us and connect us passively; if it
      // does not come soon (that attempt failed, or the peer holds a stale connection), ask again.
      ep.reaskAtNanos = Math.min(ep.handshakeDeadlineNanos,
          clock.nanoTime() + config.handshakeDeadline().toNanos() / SIMULTANEOUS_OPEN_WAIT_DIVISOR);
      return;
    }
    if (status == ConnectStatus.DEVICE_DOWN || status == ConnectStatus.SHUTTING_DOWN) {
      // Nothing wrong with the slices: the device is down at the far end. PEER_DEVICE_DOWN moves them
      // elsewhere and keeps every rail to that device out of selection.
      failHandshake(ep, SliceStatus.PEER_DEVICE_DOWN, new VteException(ErrorCode.DEVICE_UNAVAILABLE,
          ep.path + " refused the connection: " + status + " " + reply.getReason()));
      return;
    }
    if (status != ConnectStatus.ACCEPTED) {
      failHandshake(ep, new VteException(ErrorCode.HANDSHAKE_REJECTED,
          ep.path + " rejected the connection: " + status + " " + reply.getReason()));
      return;
    }
    try {
      connectQps(ep, reply.getQpsList(), reply.getLid(), reply.getGid(), reply.getMtu());
    } catch (RuntimeException e) {
      failHandshake(ep, new VteException(ErrorCode.PROTOCOL_ERROR,
          "bad ACCEPTED reply from " + ep.path + ": " + e.getMessage(), e));
      return;
    }
    ep.peerGeneration = reply.getGeneration();
    metrics.handshakeSucceeded(clock.nanoTime() - ep.handshakeStartNanos);
    onConnected(ep);
  }

  private void onConnected(Endpoint ep) {
    ep.state = EndpointState.CONNECTED;
    connecting.remove(ep);
    if (!ep.pending.isEmpty()) {
      markReady(ep);
    }
  }

  private void failHandshake(Endpoint ep, Throwable cause) {
    failHandshake(ep, SliceStatus.HANDSHAKE_FAILED, cause);
  }

  private void failHandshake(Endpoint ep, int sliceStatus, Throwable cause) {
    metrics.handshakeFailed();
    ep.state = EndpointState.FAILED;
    connecting.remove(ep);
    store.remove(ep.path, ep);
    failPending(ep, sliceStatus, cause);
    destroy(ep);
  }

  // ---------------------------------------------------------------- passive handshake

  /** Answers a peer's connect request (see DESIGN.md, simultaneous open). */
  void onPassiveConnect(ConnectRequest request, Promise<ConnectReply> reply) {
    if (closing) {
      reply.complete(messages.reject(ConnectStatus.SHUTTING_DOWN, localNicPath + " is closing"));
      return;
    }
    if (!portActive || cqBroken) {
      reply.complete(messages.reject(ConnectStatus.DEVICE_DOWN, "port " + config.port() + " of " + localNicPath + " is down"));
      return;
    }
    String invalid = ConnectMessages.validate(request);
    if (invalid != null) {
      reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, invalid));
      return;
    }
    NicPath peer = NicPath.parse(request.getLocalNicPath());
    NicPath key = peer.equals(localNicPath) ? loopbackKey : peer;
    Endpoint existing = store.get(key);
    ArrayDeque<Slice> carried = null;
    if (existing != null) {
      if (existing.state == EndpointState.CONNECTING) {
        if (localNicPath.compareTo(peer) < 0) {
          metrics.simultaneousOpen(true);
          reply.complete(messages.reject(ConnectStatus.SIMULTANEOUS_OPEN,
              localNicPath + " sorts lower than " + peer + " and keeps its active attempt"));
          return;
        }
        metrics.simultaneousOpen(false);
        if (existing.qps.length == request.getQpsCount()) {
          // Abandon our attempt (its reply becomes stale) and connect the same INIT QPs passively.
          existing.generation = nextGeneration++;
          metrics.handshakeStarted(false);
          acceptOn(existing, request, reply);
          return;
        }
      } else if (request.getGeneration() <= existing.peerGeneration) {
        metrics.staleRequestRejected();
        reply.complete(messages.reject(ConnectStatus.SIMULTANEOUS_OPEN, "request generation " + request.getGeneration()
            + " is not newer than the connected peer generation " + existing.peerGeneration));
        return;
      }
      // Replace: the peer reconnects with a newer generation. Queued slices move to the replacement.
      carried = new ArrayDeque<>(existing.pending);
      existing.pending.clear();
      connecting.remove(existing);
      retire(existing, SliceStatus.ENDPOINT_RETIRED, new VteException(ErrorCode.PEER_UNREACHABLE,
          "endpoint to " + peer + " replaced by a newer connection from the peer"));
    }
    if (!makeRoom()) {
      failAll(carried, SliceStatus.ENDPOINT_RETIRED, null);
      reply.complete(messages.reject(ConnectStatus.RESOURCE_EXHAUSTED,
          "owner " + index + " of " + localNicPath + " has " + store.size() + " busy endpoints"));
      return;
    }
    Endpoint ep;
    try {
      ep = createEndpoint(key, request.getQpsCount());
    } catch (VerbsException e) {
      failAll(carried, SliceStatus.ENDPOINT_RETIRED, null);
      reply.complete(messages.reject(ConnectStatus.RESOURCE_EXHAUSTED, "cannot create QPs: " + e.getMessage()));
      return;
    }
    if (carried != null) {
      ep.pending.addAll(carried);
    }
    store.put(ep);
    metrics.handshakeStarted(false);
    acceptOn(ep, request, reply);
  }

  private void acceptOn(Endpoint ep, ConnectRequest request, Promise<ConnectReply> reply) {
    try {
      connectQps(ep, request.getQpsList(), request.getLid(), request.getGid(), request.getMtu());
    } catch (RuntimeException e) {
      String reason = "cannot connect to " + request.getLocalNicPath() + ": " + e.getMessage();
      ep.state = EndpointState.FAILED;
      connecting.remove(ep);
      store.remove(ep.path, ep);
      failPending(ep, SliceStatus.HANDSHAKE_FAILED, new VteException(ErrorCode.PROTOCOL_ERROR, reason, e));
      destroy(ep);
      reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, reason));
      return;
    }
    ep.peerGeneration = request.getGeneration();
    onConnected(ep);
    reply.complete(messages.accepted(ep));
  }

  // ---------------------------------------------------------------- QPs

  private Endpoint createEndpoint(NicPath path, int qpCount) {
    QueuePair[] qps = new QueuePair[qpCount];
    int[] psns = new int[qpCount];
    try {
      for (int i = 0; i < qpCount; i++) {
        qps[i] = pd.createQp(new QpInitAttributes(cq, cq, config.maxOutstandingPerQp(), 1, 0));
        qps[i].toInit(config.port(), AccessFlags.ALL_REMOTE);
        psns[i] = ThreadLocalRandom.current().nextInt(1 << 24);
      }
    } catch (VerbsException e) {
      for (QueuePair qp : qps) {
        if (qp != null) {
          qp.close();
        }
      }
      throw e;
    }
    Endpoint ep = new Endpoint(path, nextGeneration++, qps, psns);
    for (QueuePair qp : qps) {
      endpointsByQp.put(qp.qpNum(), ep);
      directory.qpCreated(qp.qpNum(), this);
    }
    return ep;
  }

  private void connectQps(Endpoint ep, List<QpInfo> peerQps, int lid, ByteString gid, int mtu) {
    if (peerQps.size() != ep.qps.length) {
      throw new VteException(ErrorCode.PROTOCOL_ERROR,
          "peer sent " + peerQps.size() + " QPs for " + ep.qps.length + " of ours");
    }
    if (!ConnectMessages.validMtu(mtu)) {
      throw new VteException(ErrorCode.PROTOCOL_ERROR, "invalid peer mtu " + mtu);
    }
    Gid peerGid = Gid.fromBytes(gid.toByteArray());
    int pathMtu = Math.min(mtu, messages.port().activeMtu());
    for (int i = 0; i < ep.qps.length; i++) {
      QpInfo info = peerQps.get(i);
      ep.qps[i].toRtr(new QpPeer(info.getQpNum(), lid, peerGid, info.getPsn() & 0xffffff), pathMtu);
      ep.qps[i].toRts(new RtsAttributes(ep.psns[i], config.qpTimeout(), config.qpRetryCount(), config.qpRnrRetry()));
    }
  }

  // ---------------------------------------------------------------- retire, faults, close

  private boolean makeRoom() {
    if (!store.isFull()) {
      return true;
    }
    Endpoint victim = store.evictionCandidate();
    if (victim == null) {
      return false;
    }
    metrics.endpointEvicted();
    retire(victim, SliceStatus.ENDPOINT_RETIRED, null);
    return true;
  }

  /**
   * Takes an endpoint out of service: QPs to ERR (in-flight work flushes and is completed with
   * {@code status}), queued slices completed with {@code status}, removed from the store (only if it is
   * still the stored one). Its QPs are destroyed once every flush is in, or at the flush deadline.
   */
  private void retire(Endpoint ep, int status, Throwable cause) {
    if (ep.isDead()) {
      return;
    }
    ep.state = EndpointState.RETIRED;
    ep.retireStatus = status;
    ep.retireCause = cause;
    connecting.remove(ep);
    store.remove(ep.path, ep);
    metrics.endpointRetired();
    for (QueuePair qp : ep.qps) {
      try {
        qp.toError();
      } catch (VerbsException e) {
        // Already destroyed or in ERR: its work flushes or is accounted for at the deadline.
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

  private void failPending(Endpoint ep, int status, Throwable cause) {
    Slice slice;
    while ((slice = ep.pending.pollFirst()) != null) {
      complete(slice, status, cause);
    }
  }

  private void failAll(ArrayDeque<Slice> slices, int status, Throwable cause) {
    if (slices != null) {
      for (Slice s : slices) {
        complete(s, status, cause);
      }
    }
  }

  private void destroy(Endpoint ep) {
    for (QueuePair qp : ep.qps) {
      endpointsByQp.remove(qp.qpNum(), ep);
      directory.qpDestroyed(qp.qpNum(), this);
      qp.close();
    }
  }

  private int checkDeadlines() {
    if (connecting.isEmpty() && retiring.isEmpty()) {
      return 0;
    }
    long now = clock.nanoTime();
    int expired = 0;
    for (int i = connecting.size() - 1; i >= 0; i--) {
      Endpoint ep = connecting.get(i);
      if (now - ep.handshakeDeadlineNanos >= 0) {
        expired++;
        failHandshake(ep, new VteException(ErrorCode.TIMED_OUT,
            "no handshake answer from " + ep.path + " within " + config.handshakeDeadline()));
      } else if (ep.reaskAtNanos != 0 && now - ep.reaskAtNanos >= 0) {
        expired++;
        reask(ep);
      }
    }
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
        complete(slice, ep.retireStatus, ep.retireCause);
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
      retire(ep, SliceStatus.ENDPOINT_RETIRED, new VteException(ErrorCode.TRANSFER_FAILED,
          "QP " + qpNum + " of " + ep.path + " hit a fatal error"));
    }
  }

  /** A port went down: retire every endpoint on it, refuse new work until it is back. */
  void onPortDown(int port) {
    if (port != config.port()) {
      return;
    }
    portActive = false;
    retireAll(SliceStatus.RAIL_DOWN, new VteException(ErrorCode.DEVICE_UNAVAILABLE,
        "port " + port + " of " + localNicPath + " went down"));
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
    retireAll(SliceStatus.RAIL_DOWN, new VteException(ErrorCode.DEVICE_UNAVAILABLE, localNicPath + " died"));
  }

  /** The CQ overflowed (credits make this impossible; counted, and the owner stops using the CQ). */
  void onCqError() {
    if (cqBroken) {
      return;
    }
    cqBroken = true;
    metrics.cqError();
    VteException cause = new VteException(ErrorCode.INTERNAL, "CQ of owner " + index + " of " + localNicPath
        + " overflowed");
    retireAll(SliceStatus.ENDPOINT_RETIRED, cause);
    // No flush will come from a CQ in error: account for everything now.
    flushAndDestroyRetiring();
  }

  /** Completes every in-flight WR of the retiring endpoints now (no flush will come) and destroys them. */
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
    retireAll(SliceStatus.ENGINE_CLOSED, closeCause);
    completeCloseIfDrained();
  }

  /**
   * The owner's verticle is stopping although the owner was not closed first (e.g. {@code vertx.close()}
   * while the engine is open): nothing will poll the CQ again, so every slice it holds, queued or posted,
   * ends now with ENGINE_CLOSED, exactly once, and its retired QPs are destroyed.
   */
  void abandon() {
    if (closeCause == null) {
      closeCause = new VteException(ErrorCode.ENGINE_CLOSED, localNicPath + " stopped with Vert.x");
    }
    closing = true;
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
      destroy(ep);
    }
    for (Endpoint ep : retiring) {
      destroy(ep);
    }
    retiring.clear();
  }

  // ---------------------------------------------------------------- accessors

  /** @return this owner's command queue */
  OwnerProxy proxy() {
    return proxy;
  }

  /** @return this owner's CQ */
  CompletionQueue cq() {
    return cq;
  }

  /** @return this owner's metrics */
  OwnerMetrics metrics() {
    return metrics;
  }

  /** @return owner index within its context */
  int index() {
    return index;
  }

  /** @return the stored endpoint for a peer NIC path, {@code <server>@<device>}, or null (tests) */
  Endpoint endpoint(String path) {
    return store.get(NicPath.parse(path));
  }

  /** @return number of stored endpoints */
  int endpointCount() {
    return store.size();
  }

  /** @return work requests in flight */
  int outstanding() {
    return slots.inFlight();
  }

  /** @return endpoints retired but still waiting for flushes */
  int retiringCount() {
    return retiring.size();
  }
}
