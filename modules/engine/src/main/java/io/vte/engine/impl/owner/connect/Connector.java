package io.vte.engine.impl.owner.connect;

import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.handshake.HandshakeChannel;
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
import io.vte.handshake.WireVersions;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsContext;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

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
 * the NIC paths' order, since ours was never sent. Once its QPs are in RTS the active side sends
 * its ready-to-use. It also holds the handshake deadlines and the generation counter.
 *
 * <p>The passive side is its {@link PassiveOpen}. Owner-confined; it reaches its owner only through
 * the narrow {@link ConnectorHost}. Nothing here blocks.
 */
public final class Connector {

  /**
   * Fraction of the handshake deadline an endpoint told SIMULTANEOUS_OPEN waits for the peer's own
   * request before asking again: the peer's attempt may already have failed (its port went down, or
   * we refused it while ours was down), and then no request is coming.
   */
  private static final int SIMULTANEOUS_OPEN_WAIT_DIVISOR = 10;

  private final ConnectorHost host;
  private final OwnerConfig config;
  private final NicPath localNicPath;

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

  private final PassiveOpen passive;
  private long nextGeneration;

  /**
   * @param host the owner whose endpoints this connects
   * @param config sizes and timings
   * @param localNicPath the owner's own NIC path
   * @param device the opened device (port attributes for the messages)
   * @param store the owner's endpoints
   * @param channel sends active handshakes
   * @param clock monotonic clock (fake in tests)
   * @param metrics the owner's metrics
   * @param backoff when a refused handshake is tried again
   */
  public Connector(
      ConnectorHost host,
      OwnerConfig config,
      NicPath localNicPath,
      VerbsContext device,
      EndpointStore store,
      HandshakeChannel channel,
      NanoClock clock,
      OwnerMetrics metrics,
      HandshakeBackoff backoff) {
    this.host = host;
    this.config = config;
    this.localNicPath = localNicPath;
    this.store = store;
    this.channel = channel;
    this.clock = clock;
    this.metrics = metrics;
    this.messages = new ConnectMessages(localNicPath, device, config);
    this.backoff = backoff;
    // Seeded from the wall clock so a restarted node's generations are newer than its old ones.
    this.nextGeneration = System.currentTimeMillis() << 16;
    this.passive =
        new PassiveOpen(this, host, config, localNicPath, store, clock, metrics, messages);
  }

  /**
   * Stores a new endpoint to {@code path} with {@code first} queued on it, has its QPs made off the
   * owner's thread, and then sends its connect request.
   *
   * @param first the slice that needs it; completed HANDSHAKE_FAILED when no QPs can be made
   */
  public void startActive(NicPath path, Slice first) {
    host.makeRoom();
    Endpoint ep = host.newEndpoint(EndpointKey.to(path), config.qpsPerEndpoint(), newGeneration());
    ep.queue(first, clock.nanoTime());
    store.put(ep);
    long generation = ep.generation();
    host.prepareQps(ep, null, failure -> qpsMade(ep, generation, failure));
  }

  /** The QPs of a new active endpoint are made (or could not be): send its request, or fail it. */
  private void qpsMade(Endpoint ep, long generation, Throwable failure) {
    if (!isCurrent(ep, generation, EndpointState.NEW)) {
      metrics.staleReplyDropped();
      return;
    }
    if (failure != null) {
      fail(
          ep,
          SliceStatus.HANDSHAKE_FAILED,
          new VteException(
              ErrorCode.DEVICE_UNAVAILABLE,
              "cannot create QPs on "
                  + localNicPath
                  + " for "
                  + ep.path()
                  + ": "
                  + failure.getMessage(),
              failure));
      return;
    }
    ep.beginConnecting();
    if (connecting.size() >= config.maxHandshakesInFlight()) {
      waiting.add(ep);
    } else {
      begin(ep);
    }
  }

  /**
   * @return true when {@code ep} is still the endpoint stored for its path, under {@code
   *     generation}, in {@code state}: what a reply or a QP job that comes back may act on
   */
  public boolean isCurrent(Endpoint ep, long generation, EndpointState state) {
    return store.holds(ep) && ep.generation() == generation && ep.state() == state;
  }

  /** Starts the handshake deadline of {@code ep} and sends its first connect request. */
  private void begin(Endpoint ep) {
    long now = clock.nanoTime();
    ep.admitted(now, now + config.handshakeDeadline().toNanos());
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
      if (store.holds(ep) && ep.state() == EndpointState.CONNECTING) {
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
    ep.requestSent();
    metrics.handshakeAttempted();
    ConnectRequest request = messages.request(ep);
    long generation = ep.generation();
    // A retry or re-ask gets what is left of the endpoint's deadline, not a fresh one.
    Duration left = Duration.ofNanos(Math.max(1, ep.handshakeDeadlineNanos() - clock.nanoTime()));
    Future<ConnectReply> reply;
    try {
      reply = channel.connect(ep.path().server(), request, left);
    } catch (RuntimeException e) {
      reply = Future.failedFuture(e);
    }
    host.onAnswer(reply, ep, generation);
  }

  /**
   * Asks again under a new generation (a late answer to the earlier request is stale), without
   * extending the handshake deadline: after SIMULTANEOUS_OPEN when the peer's own request never
   * reached us ({@code reask}), or once the backoff wait of a refused attempt is over.
   */
  private void askAgain(Endpoint ep, boolean reask) {
    ep.renew(newGeneration());
    if (reask) {
      metrics.handshakeReasked();
    } else {
      metrics.handshakeRetried();
    }
    sendRequest(ep);
  }

  /**
   * Schedules the next attempt of a refused active endpoint, if the backoff allows one that starts
   * before the handshake deadline.
   *
   * @return true when scheduled (the endpoint stays CONNECTING with its slices queued)
   */
  private boolean backOff(Endpoint ep) {
    long wait = backoff.waitNanos(ep.handshakeAttempts());
    long now = clock.nanoTime();
    if (wait < 0 || now + wait - ep.handshakeDeadlineNanos() >= 0) {
      return false;
    }
    ep.retryAt(now + wait);
    metrics.handshakeBackedOff(wait);
    return true;
  }

  /**
   * Handles the reply (or failure) of an active handshake, if it still concerns the same endpoint:
   * the same object still stored for its path, under the generation the request was sent with,
   * still CONNECTING.
   */
  public void onReply(Endpoint ep, long generation, ConnectReply reply, Throwable failure) {
    if (!isCurrent(ep, generation, EndpointState.CONNECTING)) {
      metrics.staleReplyDropped();
      return;
    }
    if (failure != null) {
      // A later attempt may meet a peer that was unreachable (its engine restarting, its handshake
      // server not yet listening), not a deadline, a closed engine or a bad request.
      boolean transientFailure =
          !(failure instanceof VteException vte) || vte.code() == ErrorCode.PEER_UNREACHABLE;
      if (transientFailure && backOff(ep)) {
        return;
      }
      fail(
          ep,
          SliceStatus.HANDSHAKE_FAILED,
          failure instanceof VteException
              ? failure
              : new VteException(
                  ErrorCode.PEER_UNREACHABLE,
                  "handshake with " + ep.path() + " failed: " + failure,
                  failure));
      return;
    }
    ConnectStatus status = reply.getStatus();
    if (status == ConnectStatus.SIMULTANEOUS_OPEN) {
      // The peer keeps the active role and its request should connect us passively; if it does not
      // come soon (that attempt failed, or the peer holds a stale connection), ask again.
      ep.reaskAt(
          Math.min(
              ep.handshakeDeadlineNanos(),
              clock.nanoTime()
                  + config.handshakeDeadline().toNanos() / SIMULTANEOUS_OPEN_WAIT_DIVISOR));
      return;
    }
    if (status == ConnectStatus.DEVICE_DOWN || status == ConnectStatus.SHUTTING_DOWN) {
      // Nothing wrong with the slices: the device is down at the far end. PEER_DEVICE_DOWN moves
      // them elsewhere and keeps every rail to that device out of selection.
      fail(
          ep,
          SliceStatus.PEER_DEVICE_DOWN,
          new VteException(
              ErrorCode.DEVICE_UNAVAILABLE,
              ep.path() + " refused the connection: " + status + " " + reply.getReason()));
      return;
    }
    if (status == ConnectStatus.VERSION_MISMATCH) {
      metrics.versionMismatch();
      fail(
          ep,
          SliceStatus.HANDSHAKE_FAILED,
          WireVersions.SPOKEN.mismatch(
              WireVersions.announced(reply.getWireVersionMin(), reply.getWireVersionMax()),
              ep.path().toString()));
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
              ep.path() + " rejected the connection: " + status + " " + reply.getReason()));
      return;
    }
    int version = WireVersions.chosen(reply.getWireVersion());
    if (!WireVersions.SPOKEN.holds(version)) {
      // The peer chose a version this side did not offer: it is broken or speaks another protocol.
      metrics.versionMismatch();
      fail(
          ep,
          SliceStatus.HANDSHAKE_FAILED,
          new VteException(
              ErrorCode.VERSION_MISMATCH,
              ep.path()
                  + " chose wire version "
                  + Integer.toUnsignedString(version)
                  + ", outside the range "
                  + WireVersions.SPOKEN
                  + " this node offered"));
      return;
    }
    Consumer<QueuePair[]> connect;
    try {
      connect = messages.connectTo(ep, reply);
    } catch (RuntimeException e) {
      failBadReply(ep, e);
      return;
    }
    long peerGeneration = reply.getGeneration();
    host.prepareQps(
        ep,
        connect,
        qpFailure -> {
          // Re-validated: the endpoint may have been retired or replaced while its QPs moved.
          if (!isCurrent(ep, generation, EndpointState.CONNECTING)) {
            metrics.staleReplyDropped();
          } else if (qpFailure != null) {
            failBadReply(ep, qpFailure);
          } else {
            ep.connectedActive(peerGeneration, version);
            metrics.handshakeSucceeded(clock.nanoTime() - ep.handshakeStartNanos());
            connected(ep);
            sendReady(ep);
          }
        });
  }

  private void failBadReply(Endpoint ep, Throwable e) {
    fail(
        ep,
        SliceStatus.HANDSHAKE_FAILED,
        new VteException(
            ErrorCode.PROTOCOL_ERROR,
            "bad ACCEPTED reply from " + ep.path() + ": " + e.getMessage(),
            e));
  }

  /**
   * Tells the peer that the QPs of {@code ep} are in RTS, so it may post: the ready-to-use. Its
   * answer is not needed: if it is lost, the peer posts after its fallback wait.
   */
  private void sendReady(Endpoint ep) {
    try {
      channel.connect(ep.path().server(), messages.ready(ep), config.handshakeDeadline());
    } catch (RuntimeException e) {
      // the peer falls back to posting after its handshake deadline
    }
  }

  /**
   * Asks the peer to retire its end of {@code ep} (a connected endpoint that failed) so that none
   * of the WRITEs posted on it executes later; answered DISCONNECTED once done.
   *
   * @return the peer's answer, or the channel's failure
   */
  public Future<ConnectReply> disconnect(Endpoint ep) {
    try {
      return channel.connect(
          ep.path().server(), messages.disconnect(ep), config.handshakeDeadline());
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /** An endpoint is connected: out of the handshake books, posting once its peer is ready. */
  public void connected(Endpoint ep) {
    metrics.wireVersionAgreed(ep.key(), ep.wireVersion());
    connecting.remove(ep);
    if (!ep.awaitingPeerReady()) {
      host.markReadyIfPending(ep);
    }
  }

  /**
   * Takes an active endpoint out of the line for a handshake slot.
   *
   * @return true when it was waiting there (its request was never sent)
   */
  public boolean withdrawWaiting(Endpoint ep) {
    return waiting.remove(ep);
  }

  /**
   * @return a generation newer than any this owner gave before
   */
  public long newGeneration() {
    return nextGeneration++;
  }

  /**
   * @return the passive side of this owner's handshakes
   */
  public PassiveOpen passive() {
    return passive;
  }

  /**
   * The one way an endpoint whose handshake failed ends: counted, FAILED, out of the store and the
   * handshake deadlines, its queued slices completed with {@code sliceStatus}, its QPs destroyed.
   */
  public void fail(Endpoint ep, int sliceStatus, Throwable cause) {
    metrics.handshakeFailed();
    ep.fail();
    connecting.remove(ep);
    store.remove(ep);
    host.failPending(ep, sliceStatus, cause);
    host.destroy(ep);
  }

  /** Forgets the handshake of an endpoint the owner retired while it was connecting or waiting. */
  public void forget(Endpoint ep) {
    if (!connecting.remove(ep) && !waiting.remove(ep)) {
      passive.forget(ep);
    }
  }

  /**
   * Fails the handshakes past their deadline, asks again for those whose SIMULTANEOUS_OPEN or
   * backoff wait is over, and sends waiting handshakes into the slots that freed.
   *
   * @return how many it failed, re-sent or sent
   */
  public int checkDeadlines() {
    int admitted = admitWaiting() + passive.readyByDeadline();
    if (connecting.isEmpty()) {
      return admitted;
    }
    long now = clock.nanoTime();
    int expired = admitted;
    for (int i = connecting.size() - 1; i >= 0; i--) {
      Endpoint ep = connecting.get(i);
      if (now - ep.handshakeDeadlineNanos() >= 0) {
        expired++;
        fail(
            ep,
            SliceStatus.HANDSHAKE_FAILED,
            new VteException(
                ErrorCode.TIMED_OUT,
                "no handshake answer from " + ep.path() + " within " + config.handshakeDeadline()));
      } else if (ep.reaskDue(now)) {
        expired++;
        askAgain(ep, true);
      } else if (ep.retryDue(now)) {
        expired++;
        askAgain(ep, false);
      }
    }
    return expired;
  }

  /**
   * @return true while an active handshake waits for its answer, or a passive endpoint for the
   *     peer's ready-to-use
   */
  public boolean hasHandshakesPending() {
    return !connecting.isEmpty() || passive.awaitsPeers();
  }

  /**
   * @return active handshakes waiting for a free slot (not sent yet)
   */
  public int waitingHandshakes() {
    return waiting.size();
  }
}
