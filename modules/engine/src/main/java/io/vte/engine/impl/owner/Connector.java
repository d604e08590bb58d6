package io.vte.engine.impl.owner;

import com.google.protobuf.ByteString;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.handshake.HandshakeChannel;
import io.vte.engine.impl.handshake.PathAgreement;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.handshake.proto.QpInfo;
import io.vte.verbs.Gid;
import io.vte.verbs.QpPeer;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.VerbsException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * How one owner's endpoints get connected: the active open (a {@code Connect} sent through the
 * {@link HandshakeChannel}, whose Future's answer comes back to the owner as a command and is acted
 * on only if the same endpoint is still stored, under the same generation, still CONNECTING), the
 * passive open (a peer's request answered with our QPs), and simultaneous open, resolved without
 * waiting: the side whose local NIC path sorts lower keeps the active role, the other abandons its
 * attempt (new generation) and accepts passively; an endpoint told SIMULTANEOUS_OPEN asks again
 * after a tenth of the handshake deadline in case the peer's own attempt was lost. An active
 * attempt the peer could not take (unreachable: its engine is restarting; or RESOURCE_EXHAUSTED) is
 * tried again after a {@link HandshakeBackoff} wait, within the attempt bound and the handshake
 * deadline, before its slices fail. At most {@code maxHandshakesInFlight} active attempts are in
 * flight (or backing off); the others wait unsent, oldest first, and their handshake deadline
 * starts when they are sent; a peer's request for an endpoint still waiting is accepted whatever
 * the NIC paths' order, since ours was never sent. The passive side posts nothing until the active
 * side's ready-to-use (its request again with {@code ready_generation}, sent once its QPs are in
 * RTS, checked against both generations) or one QP ACK timeout: before, the active QPs are still in
 * INIT and drop its packets until a retransmit. It also holds the handshake deadlines and the
 * generation counter.
 *
 * <p>Owner-confined like its {@link Owner}, which it calls back for what the owner keeps: room in
 * the store, QP creation and destruction, retiring, completing slices and marking endpoints ready
 * to post. Nothing here blocks.
 */
final class Connector {

  /**
   * Fraction of the handshake deadline an endpoint told SIMULTANEOUS_OPEN waits for the peer's own
   * request before asking again: the peer's attempt may already have failed (its port went down, or
   * we refused it while ours was down), and then no request is coming.
   */
  private static final int SIMULTANEOUS_OPEN_WAIT_DIVISOR = 10;

  /**
   * Device-name suffix of the store key of the passive side of a connection of this NIC to itself.
   */
  private static final String LOOPBACK_SUFFIX = "#loopback";

  private final Owner owner;
  private final OwnerConfig config;
  private final NicPath localNicPath;

  /**
   * Store key of the passive side of a connection of this NIC to itself (the active side has the
   * path).
   */
  private final NicPath loopbackKey;

  private final EndpointStore store;
  private final HandshakeChannel channel;
  private final NanoClock clock;
  private final OwnerMetrics metrics;
  private final ConnectMessages messages;
  private final HandshakeBackoff backoff;

  /** Active endpoints whose connect request is in flight or backing off: at most the bound. */
  private final List<Endpoint> connecting = new ArrayList<>();

  /** Active endpoints waiting for a free handshake slot, their request not sent yet. */
  private final ArrayDeque<Endpoint> waiting = new ArrayDeque<>();

  /** Passive endpoints connected but waiting for the peer's ready-to-use before posting. */
  private final List<Endpoint> awaitingReady = new ArrayList<>();

  private long nextGeneration;

  /**
   * @param owner the owner whose endpoints this connects
   * @param config sizes and timings
   * @param localNicPath the owner's own NIC path
   * @param device the opened device (port attributes for the messages)
   * @param store the owner's endpoints
   * @param channel sends active handshakes
   * @param clock monotonic clock (fake in tests)
   * @param metrics the owner's metrics
   * @param backoff when a refused handshake is tried again
   */
  Connector(
      Owner owner,
      OwnerConfig config,
      NicPath localNicPath,
      VerbsContext device,
      EndpointStore store,
      HandshakeChannel channel,
      NanoClock clock,
      OwnerMetrics metrics,
      HandshakeBackoff backoff) {
    this.owner = owner;
    this.config = config;
    this.localNicPath = localNicPath;
    this.loopbackKey = NicPath.of(localNicPath.server(), localNicPath.device() + LOOPBACK_SUFFIX);
    this.store = store;
    this.channel = channel;
    this.clock = clock;
    this.metrics = metrics;
    this.messages = new ConnectMessages(localNicPath, device, config.port());
    this.backoff = backoff;
    // Seeded from the wall clock so a restarted node's generations are newer than its old ones.
    this.nextGeneration = System.currentTimeMillis() << 16;
  }

  // ---------------------------------------------------------------- active open

  /**
   * Creates the endpoint to {@code path} and sends its connect request.
   *
   * @param first the slice that needs it; completed HANDSHAKE_FAILED here when no QPs can be made
   * @return the CONNECTING endpoint, or null when none could be made
   */
  Endpoint startActive(NicPath path, Slice first) {
    owner.makeRoom();
    Endpoint ep;
    try {
      ep = owner.createEndpoint(path, config.qpsPerEndpoint(), nextGeneration++);
    } catch (VerbsException e) {
      owner.complete(
          first,
          SliceStatus.HANDSHAKE_FAILED,
          new VteException(
              ErrorCode.DEVICE_UNAVAILABLE,
              "cannot create QPs on " + localNicPath + " for " + path + ": " + e.getMessage(),
              e));
      return null;
    }
    ep.moveTo(EndpointState.CONNECTING);
    store.put(ep);
    if (connecting.size() >= config.maxHandshakesInFlight()) {
      waiting.add(ep);
    } else {
      begin(ep);
    }
    return ep;
  }

  /** Starts the handshake deadline of {@code ep} and sends its first connect request. */
  private void begin(Endpoint ep) {
    ep.handshakeStartNanos = clock.nanoTime();
    ep.handshakeDeadlineNanos = ep.handshakeStartNanos + config.handshakeDeadline().toNanos();
    connecting.add(ep);
    metrics.handshakeStarted(true);
    sendRequest(ep);
  }

  /**
   * Sends the waiting handshakes, oldest first, while fewer than the bound are in flight; one that
   * is no longer the stored CONNECTING endpoint of its path is dropped.
   *
   * @return how many it sent
   */
  private int admitWaiting() {
    int sent = 0;
    while (!waiting.isEmpty() && connecting.size() < config.maxHandshakesInFlight()) {
      Endpoint ep = waiting.poll();
      if (store.get(ep.path) == ep && ep.state() == EndpointState.CONNECTING) {
        begin(ep);
        sent++;
      }
    }
    return sent;
  }

  /**
   * Sends the connect request of {@code ep} under its current generation; the reply comes back as a
   * command.
   */
  private void sendRequest(Endpoint ep) {
    ep.reaskAtNanos = 0;
    ep.retryAtNanos = 0;
    ep.handshakeAttempts++;
    metrics.handshakeAttempted();
    ConnectRequest request = messages.request(ep);
    long generation = ep.generation;
    // A retry or re-ask gets what is left of the endpoint's deadline, not a fresh one.
    Duration left = Duration.ofNanos(Math.max(1, ep.handshakeDeadlineNanos - clock.nanoTime()));
    Future<ConnectReply> reply;
    try {
      reply = channel.connect(ep.path.server(), request, left);
    } catch (RuntimeException e) {
      reply = Future.failedFuture(e);
    }
    OwnerProxy proxy = owner.proxy();
    reply.onComplete(ar -> proxy.handshakeReply(ep, generation, ar));
  }

  /**
   * Asks again for an endpoint whose peer said SIMULTANEOUS_OPEN but whose own request never
   * reached us. The new generation makes any late answer to the old request stale. The handshake
   * deadline is not extended.
   */
  private void reask(Endpoint ep) {
    ep.generation = nextGeneration++;
    metrics.handshakeReasked();
    sendRequest(ep);
  }

  /**
   * Tries a refused endpoint again once its backoff wait is over, under a new generation (a late
   * answer to an earlier attempt is stale). The handshake deadline is not extended.
   */
  private void retry(Endpoint ep) {
    ep.generation = nextGeneration++;
    metrics.handshakeRetried();
    sendRequest(ep);
  }

  /**
   * Schedules the next attempt of a refused active endpoint, if the backoff allows one that starts
   * before the handshake deadline.
   *
   * @return true when scheduled (the endpoint stays CONNECTING with its slices queued)
   */
  private boolean backOff(Endpoint ep) {
    long wait = backoff.waitNanos(ep.handshakeAttempts);
    long now = clock.nanoTime();
    if (wait < 0 || now + wait - ep.handshakeDeadlineNanos >= 0) {
      return false;
    }
    ep.retryAtNanos = now + wait;
    metrics.handshakeBackedOff(wait);
    return true;
  }

  /**
   * @return true for a failure a later attempt may not meet: the peer was unreachable (its engine
   *     restarting, its handshake server not yet listening), not a deadline, a closed engine or a
   *     bad request
   */
  private static boolean isTransient(Throwable failure) {
    return !(failure instanceof VteException vte) || vte.code() == ErrorCode.PEER_UNREACHABLE;
  }

  /**
   * Handles the reply (or failure) of an active handshake, if it still concerns the same endpoint:
   * the same object still stored for its path, under the generation the request was sent with,
   * still CONNECTING.
   */
  void onReply(Endpoint ep, long generation, ConnectReply reply, Throwable failure) {
    if (store.get(ep.path) != ep
        || ep.generation != generation
        || ep.state() != EndpointState.CONNECTING) {
      metrics.staleReplyDropped();
      return;
    }
    if (failure != null) {
      if (isTransient(failure) && backOff(ep)) {
        return;
      }
      fail(
          ep,
          SliceStatus.HANDSHAKE_FAILED,
          failure instanceof VteException
              ? failure
              : new VteException(
                  ErrorCode.PEER_UNREACHABLE,
                  "handshake with " + ep.path + " failed: " + failure,
                  failure));
      return;
    }
    ConnectStatus status = reply.getStatus();
    if (status == ConnectStatus.SIMULTANEOUS_OPEN) {
      // The peer keeps the active role and its request should reach us and connect us passively; if
      // it
      // does not come soon (that attempt failed, or the peer holds a stale connection), ask again.
      ep.reaskAtNanos =
          Math.min(
              ep.handshakeDeadlineNanos,
              clock.nanoTime()
                  + config.handshakeDeadline().toNanos() / SIMULTANEOUS_OPEN_WAIT_DIVISOR);
      return;
    }
    if (status == ConnectStatus.DEVICE_DOWN || status == ConnectStatus.SHUTTING_DOWN) {
      // Nothing wrong with the slices: the device is down at the far end. PEER_DEVICE_DOWN moves
      // them
      // elsewhere and keeps every rail to that device out of selection.
      fail(
          ep,
          SliceStatus.PEER_DEVICE_DOWN,
          new VteException(
              ErrorCode.DEVICE_UNAVAILABLE,
              ep.path + " refused the connection: " + status + " " + reply.getReason()));
      return;
    }
    if (status == ConnectStatus.RESOURCE_EXHAUSTED && backOff(ep)) {
      // The peer had no QP to spare now; it may have after its idle endpoints are evicted.
      return;
    }
    if (status != ConnectStatus.ACCEPTED) {
      fail(
          ep,
          SliceStatus.HANDSHAKE_FAILED,
          new VteException(
              ErrorCode.HANDSHAKE_REJECTED,
              ep.path + " rejected the connection: " + status + " " + reply.getReason()));
      return;
    }
    try {
      PathAgreement.requireSameGidType(
          messages.port(), reply.getGidType(), reply.getLocalNicPath());
      connectQps(
          ep,
          reply.getQpsList(),
          reply.getLid(),
          reply.getGid(),
          reply.getReadDepth(),
          PathAgreement.pathMtu(
              messages.port(), reply.getLinkLayer(), reply.getMtu(), reply.getLocalNicPath()));
    } catch (RuntimeException e) {
      fail(
          ep,
          SliceStatus.HANDSHAKE_FAILED,
          new VteException(
              ErrorCode.PROTOCOL_ERROR,
              "bad ACCEPTED reply from " + ep.path + ": " + e.getMessage(),
              e));
      return;
    }
    ep.peerGeneration = reply.getGeneration();
    metrics.handshakeSucceeded(clock.nanoTime() - ep.handshakeStartNanos);
    connected(ep);
    sendReady(ep);
  }

  /**
   * Tells the peer that the QPs of {@code ep} are in RTS, so it may post: the ready-to-use. Its
   * answer is not needed: if it is lost, the peer posts after its fallback wait.
   */
  private void sendReady(Endpoint ep) {
    try {
      channel.connect(ep.path.server(), messages.ready(ep), config.handshakeDeadline());
    } catch (RuntimeException e) {
      // the peer falls back to posting after one ACK timeout
    }
  }

  /**
   * The peer's ready-to-use: the endpoint it names, if it is still the stored one under the same
   * generations and waiting, starts posting.
   */
  private void onPeerReady(NicPath key, ConnectRequest request, Promise<ConnectReply> reply) {
    Endpoint ep = store.get(key);
    if (ep == null
        || !ep.awaitingPeerReady
        || ep.generation != request.getReadyGeneration()
        || ep.peerGeneration != request.getGeneration()) {
      reply.complete(
          messages.reject(
              ConnectStatus.INVALID_REQUEST,
              "no endpoint of generation "
                  + request.getReadyGeneration()
                  + " for "
                  + request.getLocalNicPath()
                  + " generation "
                  + request.getGeneration()
                  + " waits for readiness"));
      return;
    }
    peerReady(ep);
    reply.complete(messages.accepted(ep));
  }

  /** Lets a passive endpoint post: the peer is ready (or it waited long enough). */
  private void peerReady(Endpoint ep) {
    ep.awaitingPeerReady = false;
    awaitingReady.remove(ep);
    owner.markReadyIfPending(ep);
  }

  // ---------------------------------------------------------------- disconnect (WRITE fence)

  /**
   * Asks the peer to retire its end of {@code ep} (a connected endpoint that failed) so that none
   * of the WRITEs posted on it executes later; answered DISCONNECTED once done.
   *
   * @return the peer's answer, or the channel's failure
   */
  Future<ConnectReply> disconnect(Endpoint ep) {
    try {
      return channel.connect(ep.path.server(), messages.disconnect(ep), config.handshakeDeadline());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * A peer's disconnect: retires our endpoint to it if it is the one of the named generation (its
   * QPs go to ERR, so nothing the peer sent on it executes any more, even what is still unread),
   * and answers DISCONNECTED; an endpoint of another generation, or none, means that one is retired
   * or gone already.
   */
  void onPeerDisconnect(ConnectRequest request, Promise<ConnectReply> reply) {
    String badPath = NicPath.problem(request.getLocalNicPath());
    if (badPath != null) {
      reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, "local_nic_path " + badPath));
      return;
    }
    NicPath peer = NicPath.parse(request.getLocalNicPath());
    NicPath key = peer.equals(localNicPath) ? loopbackKey : peer;
    Endpoint ep = store.get(key);
    if (ep != null && ep.generation == request.getDisconnectGeneration()) {
      metrics.peerDisconnected();
      owner.retire(
          ep,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.PEER_UNREACHABLE, peer + " disconnected its end of the connection"));
    }
    reply.complete(
        messages.disconnected(
            "endpoint generation "
                + request.getDisconnectGeneration()
                + " to "
                + peer
                + " is retired"));
  }

  // ---------------------------------------------------------------- passive open

  /**
   * Answers a peer's connect request on an owner that takes connections (see the class comment for
   * simultaneous open; a request with a newer generation replaces a connected endpoint).
   */
  void onPassiveConnect(ConnectRequest request, Promise<ConnectReply> reply) {
    String invalid = ConnectMessages.validate(request);
    if (invalid != null) {
      reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, invalid));
      return;
    }
    NicPath peer = NicPath.parse(request.getLocalNicPath());
    NicPath key = peer.equals(localNicPath) ? loopbackKey : peer;
    if (request.getReadyGeneration() != 0) {
      onPeerReady(key, request, reply);
      return;
    }
    Endpoint existing = store.get(key);
    ArrayDeque<Slice> carried = null;
    if (existing != null) {
      if (existing.state() == EndpointState.CONNECTING) {
        // One still waiting for a slot sent nothing: no simultaneous open, the peer's request wins.
        boolean sent = !waiting.remove(existing);
        if (sent && localNicPath.compareTo(peer) < 0) {
          metrics.simultaneousOpen(true);
          reply.complete(
              messages.reject(
                  ConnectStatus.SIMULTANEOUS_OPEN,
                  localNicPath + " sorts lower than " + peer + " and keeps its active attempt"));
          return;
        }
        if (sent) {
          metrics.simultaneousOpen(false);
        }
        if (existing.qps.length == request.getQpsCount()) {
          // Abandon our attempt (its reply becomes stale) and connect the same INIT QPs passively.
          existing.generation = nextGeneration++;
          metrics.handshakeStarted(false);
          acceptOn(existing, request, reply);
          return;
        }
      } else if (request.getGeneration() <= existing.peerGeneration) {
        metrics.staleRequestRejected();
        reply.complete(
            messages.reject(
                ConnectStatus.SIMULTANEOUS_OPEN,
                "request generation "
                    + request.getGeneration()
                    + " is not newer than the connected peer generation "
                    + existing.peerGeneration));
        return;
      }
      // Replace: the peer reconnects with a newer generation. Queued slices move to the
      // replacement.
      carried = new ArrayDeque<>(existing.pending);
      existing.pending.clear();
      owner.retire(
          existing,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.PEER_UNREACHABLE,
              "endpoint to " + peer + " replaced by a newer connection from the peer"));
    }
    owner.makeRoom();
    Endpoint ep;
    try {
      ep = owner.createEndpoint(key, request.getQpsCount(), nextGeneration++);
    } catch (VerbsException e) {
      owner.failAll(carried, SliceStatus.ENDPOINT_RETIRED, null);
      reply.complete(
          messages.reject(
              ConnectStatus.RESOURCE_EXHAUSTED, "cannot create QPs: " + e.getMessage()));
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
      PathAgreement.requireSameGidType(
          messages.port(), request.getGidType(), request.getLocalNicPath());
      connectQps(
          ep,
          request.getQpsList(),
          request.getLid(),
          request.getGid(),
          request.getReadDepth(),
          PathAgreement.pathMtu(
              messages.port(),
              request.getLinkLayer(),
              request.getMtu(),
              request.getLocalNicPath()));
    } catch (RuntimeException e) {
      String reason = "cannot connect to " + request.getLocalNicPath() + ": " + e.getMessage();
      fail(ep, SliceStatus.HANDSHAKE_FAILED, new VteException(ErrorCode.PROTOCOL_ERROR, reason, e));
      reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, reason));
      return;
    }
    ep.peerGeneration = request.getGeneration();
    // The requester's QPs are still in INIT: wait for its ready-to-use, or one ACK timeout.
    ep.awaitingPeerReady = true;
    ep.peerReadyDeadlineNanos = clock.nanoTime() + ackTimeoutNanos();
    awaitingReady.add(ep);
    connected(ep);
    reply.complete(messages.accepted(ep));
  }

  /** The QPs' local ACK timeout: what the first packets to a peer not yet in RTR would wait. */
  private long ackTimeoutNanos() {
    return new RtsAttributes(0, config.qpTimeout(), 0, 0).timeoutNanos();
  }

  // ---------------------------------------------------------------- both sides

  private void connectQps(
      Endpoint ep, List<QpInfo> peerQps, int lid, ByteString gid, int readDepth, int pathMtu) {
    if (peerQps.size() != ep.qps.length) {
      throw new VteException(
          ErrorCode.PROTOCOL_ERROR,
          "peer sent " + peerQps.size() + " QPs for " + ep.qps.length + " of ours");
    }
    Gid peerGid = Gid.fromBytes(gid.toByteArray());
    for (int i = 0; i < ep.qps.length; i++) {
      QpInfo info = peerQps.get(i);
      ep.qps[i].toRtr(
          new QpPeer(
              info.getQpNum(), lid, peerGid, info.getPsn() & 0xffffff, Math.min(readDepth, 255)),
          pathMtu);
      ep.qps[i].toRts(
          new RtsAttributes(
              ep.psns[i], config.qpTimeout(), config.qpRetryCount(), config.qpRnrRetry()));
    }
  }

  private void connected(Endpoint ep) {
    ep.moveTo(EndpointState.CONNECTED);
    connecting.remove(ep);
    if (!ep.awaitingPeerReady) {
      owner.markReadyIfPending(ep);
    }
  }

  /**
   * The one way an endpoint whose handshake failed ends: counted, FAILED, out of the store and the
   * handshake deadlines, its queued slices completed with {@code sliceStatus}, its QPs destroyed.
   */
  private void fail(Endpoint ep, int sliceStatus, Throwable cause) {
    metrics.handshakeFailed();
    ep.moveTo(EndpointState.FAILED);
    connecting.remove(ep);
    store.remove(ep.path, ep);
    owner.failPending(ep, sliceStatus, cause);
    owner.destroy(ep);
  }

  /** Forgets the handshake of an endpoint the owner retired while it was connecting or waiting. */
  void forget(Endpoint ep) {
    if (!connecting.remove(ep) && !waiting.remove(ep)) {
      awaitingReady.remove(ep);
    }
  }

  /**
   * Fails the handshakes past their deadline, asks again for those whose SIMULTANEOUS_OPEN or
   * backoff wait is over, and sends waiting handshakes into the slots that freed.
   *
   * @return how many it failed, re-sent or sent
   */
  int checkDeadlines() {
    int admitted = admitWaiting() + readyByDeadline();
    if (connecting.isEmpty()) {
      return admitted;
    }
    long now = clock.nanoTime();
    int expired = admitted;
    for (int i = connecting.size() - 1; i >= 0; i--) {
      Endpoint ep = connecting.get(i);
      if (now - ep.handshakeDeadlineNanos >= 0) {
        expired++;
        fail(
            ep,
            SliceStatus.HANDSHAKE_FAILED,
            new VteException(
                ErrorCode.TIMED_OUT,
                "no handshake answer from " + ep.path + " within " + config.handshakeDeadline()));
      } else if (ep.reaskAtNanos != 0 && now - ep.reaskAtNanos >= 0) {
        expired++;
        reask(ep);
      } else if (ep.retryAtNanos != 0 && now - ep.retryAtNanos >= 0) {
        expired++;
        retry(ep);
      }
    }
    return expired;
  }

  /**
   * Lets the passive endpoints whose peer's ready-to-use did not come within one ACK timeout post
   * anyway (no worse than posting at once: their first packets would have waited that long).
   *
   * @return how many it let post
   */
  private int readyByDeadline() {
    int n = 0;
    long now = clock.nanoTime();
    for (int i = awaitingReady.size() - 1; i >= 0; i--) {
      Endpoint ep = awaitingReady.get(i);
      if (now - ep.peerReadyDeadlineNanos >= 0) {
        peerReady(ep);
        n++;
      }
    }
    return n;
  }

  /**
   * @return true while an active handshake waits for its answer, or a passive endpoint for the
   *     peer's ready-to-use
   */
  boolean hasHandshakesPending() {
    return !connecting.isEmpty() || !awaitingReady.isEmpty();
  }

  /**
   * @return active handshakes waiting for a free slot (not sent yet)
   */
  int waitingHandshakes() {
    return waiting.size();
  }
}
