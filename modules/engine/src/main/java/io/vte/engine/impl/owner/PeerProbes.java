package io.vte.engine.impl.owner;

import io.vertx.core.AsyncResult;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.connect.Connector;
import io.vte.engine.impl.owner.connect.PeerLiveness;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.owner.endpoint.EndpointStore;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Finds a dead or restarted peer long before its QPs give up: a connected endpoint whose work in
 * flight saw no completion for {@code peerProbeAfter} has its peer probed ({@link
 * io.vte.engine.impl.owner.connect.PeerRequests#probe}: a Future, the answer comes back as an owner
 * command), at most one probe per peer server at a time and per interval ({@link PeerLiveness}). A
 * refused connection declares the peer gone (every owner then retires its endpoints to it, their
 * slices ending PEER_GONE); a peer that answers but no longer holds this endpoint (it restarted, or
 * retired its end) has the endpoint retired, its slices going again on a fresh one; an ACCEPTED
 * answer is a slow but alive peer, left alone. Owner-confined.
 */
final class PeerProbes {

  /** Checks for quiet endpoints per probe period. */
  private static final int CHECKS_PER_PERIOD = 4;

  /** A probe's deadline, in probe periods: answered or not, the peer is probed again after it. */
  private static final int DEADLINE_PERIODS = 4;

  private final Owner owner;
  private final EndpointStore store;
  private final Connector connector;
  private final PeerLiveness peers;
  private final OwnerMetrics metrics;
  private final String localServer;
  private final long probeAfterNanos;
  private final Duration probeDeadline;

  /** Endpoints whose probe is in flight, with the generation it was sent under. */
  private final Map<Endpoint, Long> probing = new HashMap<>();

  private long nextCheckNanos;

  PeerProbes(
      Owner owner,
      EndpointStore store,
      Connector connector,
      PeerLiveness peers,
      OwnerMetrics metrics,
      OwnerConfig config,
      String localServer,
      long nowNanos) {
    this.owner = owner;
    this.store = store;
    this.connector = connector;
    this.peers = peers;
    this.metrics = metrics;
    this.localServer = localServer;
    this.probeAfterNanos = config.peerProbeAfter().toNanos();
    this.probeDeadline = config.peerProbeAfter().multipliedBy(DEADLINE_PERIODS);
    this.nextCheckNanos = nowNanos + probeAfterNanos / CHECKS_PER_PERIOD;
  }

  /**
   * Probes the peers of the connected endpoints whose work in flight has been quiet for the probe
   * period (checked a few times per period).
   *
   * @param inFlight the owner's work requests in flight
   * @return how many probes it sent
   */
  int probeQuiet(long nowNanos, int inFlight) {
    if (nowNanos - nextCheckNanos < 0) {
      return 0;
    }
    nextCheckNanos = nowNanos + probeAfterNanos / CHECKS_PER_PERIOD;
    if (inFlight == 0) {
      return 0;
    }
    int sent = 0;
    for (Endpoint ep : store.snapshot()) {
      String server = ep.path().server();
      if (ep.state() == EndpointState.CONNECTED
          && ep.outstanding() > 0
          && ep.quietFor(nowNanos) >= probeAfterNanos
          && !probing.containsKey(ep)
          && !server.equals(localServer) // this process is not dead
          && peers.tryProbe(server, nowNanos)) {
        long generation = ep.generation();
        probing.put(ep, generation);
        OwnerProxy proxy = owner.proxy();
        connector
            .requests()
            .probe(ep, probeDeadline)
            .onComplete(
                ar -> {
                  answered(server, ar);
                  proxy.probeAnswer(ep, ar);
                });
        sent++;
      }
    }
    return sent;
  }

  /**
   * A probe of {@code server} ended, on whatever thread its answer came: the next one may go (at
   * the next check when this one told nothing), and a refused connection declares the peer gone,
   * which every owner (this one too, through its queue) hears at once, even one that is closing.
   */
  private void answered(String server, AsyncResult<ConnectReply> answer) {
    boolean refused = answer.failed() && PeerLiveness.isRefusal(answer.cause());
    peers.probeDone(server, answer.succeeded() || refused);
    if (refused) {
      peers.refusedBy(server, PeerLiveness.goneCause(server, answer.cause()));
    }
  }

  /**
   * The answer to the probe sent for {@code ep}, on the owner's thread: a peer that answers but no
   * longer holds the endpoint has it retired. A failure was handled by {@link #answered}; a
   * deadline or a reset call tells nothing, and the next quiet check probes again.
   */
  void onAnswer(Endpoint ep, AsyncResult<ConnectReply> answer) {
    Long generation = probing.remove(ep);
    if (answer.failed()
        || generation == null
        || !store.holds(ep)
        || ep.generation() != generation
        || ep.state() != EndpointState.CONNECTED) {
      return; // retired or replaced meanwhile
    }
    String server = ep.path().server();
    ConnectReply reply = answer.result();
    if (reply.getStatus() == ConnectStatus.INVALID_REQUEST
        || reply.getStatus() == ConnectStatus.UNKNOWN_DEVICE) {
      owner.retire(
          ep,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.PEER_UNREACHABLE,
              server
                  + " answers but no longer holds its end of "
                  + ep.path()
                  + " (it restarted or retired it): "
                  + reply.getReason()
                  + "; reconnecting"));
    }
  }

  /**
   * The peer {@code server} is gone: retires every endpoint to it, its slices ending PEER_GONE.
   *
   * @return how many it retired
   */
  int peerGone(String server, VteException cause) {
    int n = 0;
    for (Endpoint ep : store.snapshot()) {
      if (ep.path().server().equals(server)) {
        metrics.endpointPeerGone();
        owner.retire(ep, SliceStatus.PEER_GONE, cause);
        n++;
      }
    }
    return n;
  }
}
