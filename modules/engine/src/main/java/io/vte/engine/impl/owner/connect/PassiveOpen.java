package io.vte.engine.impl.owner.connect;

import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.NanoClock;
import io.vte.engine.impl.owner.OwnerConfig;
import io.vte.engine.impl.owner.OwnerMetrics;
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
import io.vte.verbs.QueuePair;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The passive side of one owner's handshakes: a peer's connect request answered with our QPs
 * (simultaneous open resolved as the {@link Connector} describes; a request with a newer generation
 * replaces a connected endpoint), the peer's ready-to-use, and a peer's disconnect (its WRITE
 * fence). The endpoints it connects join the {@link Connector}'s books, which it shares. It posts
 * nothing until the active side's ready-to-use (its request again with {@code ready_generation},
 * sent once its QPs are in RTS, checked against both generations): before, the active QPs are still
 * in INIT and drop its packets, which then wait for a retransmit one ACK timeout later. Only a
 * ready-to-use that never comes (lost) lets it post anyway, after the handshake deadline.
 * Owner-confined; nothing here blocks.
 */
public final class PassiveOpen {

  private final Connector connector;
  private final ConnectorHost host;
  private final OwnerConfig config;
  private final NicPath localNicPath;
  private final EndpointStore store;
  private final NanoClock clock;
  private final OwnerMetrics metrics;
  private final ConnectMessages messages;

  /** Passive endpoints connected but waiting for the peer's ready-to-use before posting. */
  private final List<Endpoint> awaitingReady = new ArrayList<>();

  /** Made by its {@link Connector}, with whose books and the owner's parts it works. */
  public PassiveOpen(
      Connector connector,
      ConnectorHost host,
      OwnerConfig config,
      NicPath localNicPath,
      EndpointStore store,
      NanoClock clock,
      OwnerMetrics metrics,
      ConnectMessages messages) {
    this.connector = connector;
    this.host = host;
    this.config = config;
    this.localNicPath = localNicPath;
    this.store = store;
    this.clock = clock;
    this.metrics = metrics;
    this.messages = messages;
  }

  /**
   * Answers a peer's request: a disconnect whatever the owner's state (closing or port down, it
   * retired its endpoints); else {@code refusal} when the owner takes no connections now, or a
   * passive open.
   *
   * @param refusal SHUTTING_DOWN or DEVICE_DOWN, or null when the owner takes connections
   */
  public void onRequest(
      ConnectRequest request, Promise<ConnectReply> reply, ConnectStatus refusal) {
    if (request.getDisconnectGeneration() != 0) {
      onPeerDisconnect(request, reply);
    } else if (refusal == ConnectStatus.SHUTTING_DOWN) {
      reply.complete(messages.reject(refusal, localNicPath + " is closing"));
    } else if (refusal != null) {
      reply.complete(
          messages.reject(refusal, "port " + config.port() + " of " + localNicPath + " is down"));
    } else {
      onPassiveConnect(request, reply);
    }
  }

  /**
   * Answers a peer's connect request on an owner that takes connections (see the {@link Connector}
   * for simultaneous open; a request with a newer generation replaces a connected endpoint).
   */
  private void onPassiveConnect(ConnectRequest request, Promise<ConnectReply> reply) {
    String invalid = ConnectMessages.validate(request);
    if (invalid != null) {
      reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, invalid));
      return;
    }
    if (ConnectMessages.agreedVersion(request) == 0) {
      metrics.versionMismatch();
      reply.complete(messages.versionMismatch(request));
      return;
    }
    NicPath peer = NicPath.parse(request.getLocalNicPath());
    EndpointKey key = EndpointKey.passive(peer, localNicPath);
    if (request.getReadyGeneration() != 0) {
      onPeerReady(key, request, reply);
      return;
    }
    Endpoint existing = store.get(key);
    ArrayDeque<Slice> carried = null;
    if (existing != null) {
      if (existing.state() == EndpointState.CONNECTING) {
        // One still waiting for a slot sent nothing: no simultaneous open, the peer's request wins.
        boolean sent = !connector.withdrawWaiting(existing);
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
        if (existing.qpCount() == request.getQpsCount() && !existing.qpJobInFlight()) {
          // Abandon our attempt (its reply becomes stale) and connect the same INIT QPs passively.
          existing.renew(connector.newGeneration());
          metrics.handshakeStarted(false);
          acceptOn(existing, EndpointState.CONNECTING, request, reply);
          return;
        }
      } else if (request.getGeneration() <= existing.peerGeneration()) {
        metrics.staleRequestRejected();
        reply.complete(
            messages.reject(
                ConnectStatus.SIMULTANEOUS_OPEN,
                "request generation "
                    + request.getGeneration()
                    + " is not newer than the connected peer generation "
                    + existing.peerGeneration()));
        return;
      }
      // Replace: the peer reconnects with a newer generation. Queued slices move to the
      // replacement.
      carried = existing.takePending();
      host.retire(
          existing,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.PEER_UNREACHABLE,
              "endpoint to " + peer + " replaced by a newer connection from the peer"));
    }
    host.makeRoom();
    Endpoint ep = host.newEndpoint(key, request.getQpsCount(), connector.newGeneration());
    if (carried != null) {
      ep.requeue(carried);
    }
    store.put(ep);
    metrics.handshakeStarted(false);
    acceptOn(ep, EndpointState.NEW, request, reply);
  }

  /**
   * Connects the QPs of {@code ep} (made first when it has none) to the requester's off the owner's
   * thread, then answers: ACCEPTED if it is still the stored endpoint, under the same generation,
   * in {@code state}; else the request was overtaken meanwhile (retired, replaced) and is refused
   * RESOURCE_EXHAUSTED, which the peer retries after a backoff.
   */
  private void acceptOn(
      Endpoint ep, EndpointState state, ConnectRequest request, Promise<ConnectReply> reply) {
    Consumer<QueuePair[]> connect;
    try {
      connect = messages.connectTo(ep, request);
    } catch (RuntimeException e) {
      refuseBadRequest(ep, request, reply, e);
      return;
    }
    long generation = ep.generation();
    boolean create = !ep.hasQps();
    host.prepareQps(
        ep,
        connect,
        failure -> {
          if (!connector.isCurrent(ep, generation, state)) {
            metrics.staleReplyDropped();
            reply.complete(
                messages.reject(
                    ConnectStatus.RESOURCE_EXHAUSTED,
                    "the connection from "
                        + request.getLocalNicPath()
                        + " was overtaken while its QPs were set up"));
          } else if (failure != null && create && !ep.hasQps()) {
            connector.fail(ep, SliceStatus.ENDPOINT_RETIRED, null);
            reply.complete(
                messages.reject(
                    ConnectStatus.RESOURCE_EXHAUSTED,
                    "cannot create QPs: " + failure.getMessage()));
          } else if (failure != null) {
            refuseBadRequest(ep, request, reply, failure);
          } else {
            // The requester's QPs stay in INIT until our reply reaches it and its QPs move (a
            // control-plane trip and, on RoCE, a neighbour lookup; nothing to do with the ACK
            // timeout): wait for its ready-to-use; if lost, as long as it waits for our reply.
            ep.connectedPassive(
                request.getGeneration(),
                ConnectMessages.agreedVersion(request),
                clock.nanoTime() + config.handshakeDeadline().toNanos());
            awaitingReady.add(ep);
            connector.connected(ep);
            reply.complete(messages.accepted(ep));
          }
        });
  }

  private void refuseBadRequest(
      Endpoint ep, ConnectRequest request, Promise<ConnectReply> reply, Throwable e) {
    String reason = "cannot connect to " + request.getLocalNicPath() + ": " + e.getMessage();
    connector.fail(
        ep, SliceStatus.HANDSHAKE_FAILED, new VteException(ErrorCode.PROTOCOL_ERROR, reason, e));
    reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, reason));
  }

  /**
   * The peer's ready-to-use: the endpoint it names, if it is still the stored one under the same
   * generations and waiting, starts posting; one already posting answers ACCEPTED (the peer probes
   * whether this end is still there); anything else is INVALID_REQUEST.
   */
  private void onPeerReady(EndpointKey key, ConnectRequest request, Promise<ConnectReply> reply) {
    Endpoint ep = store.get(key);
    boolean same =
        ep != null
            && ep.generation() == request.getReadyGeneration()
            && ep.peerGeneration() == request.getGeneration();
    if (same && ep.state() == EndpointState.CONNECTED && !ep.awaitingPeerReady()) {
      // A probe (the ready-to-use again, from a peer whose work stopped completing): this end is
      // still here and connected.
      reply.complete(messages.accepted(ep));
      return;
    }
    if (!same || !ep.awaitingPeerReady()) {
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
    ep.peerReady();
    awaitingReady.remove(ep);
    host.markReadyIfPending(ep);
  }

  /**
   * Lets the passive endpoints whose peer's ready-to-use did not come within the handshake deadline
   * post anyway: it was lost, or the peer failed after our answer (then their work fails as to any
   * dead peer).
   *
   * @return how many it let post
   */
  public int readyByDeadline() {
    int n = 0;
    long now = clock.nanoTime();
    for (int i = awaitingReady.size() - 1; i >= 0; i--) {
      Endpoint ep = awaitingReady.get(i);
      if (ep.peerReadyOverdue(now)) {
        peerReady(ep);
        n++;
      }
    }
    return n;
  }

  /**
   * @return true while a passive endpoint waits for its peer's ready-to-use
   */
  public boolean awaitsPeers() {
    return !awaitingReady.isEmpty();
  }

  /** Forgets a passive endpoint the owner retired while it waited for its peer. */
  public void forget(Endpoint ep) {
    awaitingReady.remove(ep);
  }

  // ---------------------------------------------------------------- disconnect (WRITE fence)

  /**
   * A peer's disconnect: retires our endpoint to it if it is the one of the named generation (its
   * QPs go to ERR, so nothing the peer sent on it executes any more, even what is still unread),
   * and answers DISCONNECTED; an endpoint of another generation, or none, means that one is retired
   * or gone already.
   */
  private void onPeerDisconnect(ConnectRequest request, Promise<ConnectReply> reply) {
    String badPath = NicPath.problem(request.getLocalNicPath());
    if (badPath != null) {
      reply.complete(messages.reject(ConnectStatus.INVALID_REQUEST, "local_nic_path " + badPath));
      return;
    }
    NicPath peer = NicPath.parse(request.getLocalNicPath());
    Endpoint ep = store.get(EndpointKey.passive(peer, localNicPath));
    if (ep != null && ep.generation() == request.getDisconnectGeneration()) {
      metrics.peerDisconnected();
      host.retire(
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
}
