package io.vte.engine.impl.owner;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.owner.endpoint.EndpointStore;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.verbs.RtsAttributes;

/**
 * Keeps one owner's store in bounds: evicts the least recently used idle endpoint to make room,
 * retires endpoints unused for {@code idleEndpoint}, and retires connected endpoints whose work
 * requests stopped completing. Owner-confined.
 */
final class EndpointSweeps {

  /**
   * Checks for unused endpoints per {@code idleEndpoint}: one is retired between 1 and 1.25 times
   * that after its last use.
   */
  private static final int IDLE_CHECKS_PER_PERIOD = 4;

  /** Checks for stalled endpoints per stall limit: one is retired within 1.25 times that. */
  private static final int STALL_CHECKS_PER_PERIOD = 4;

  private final Owner owner;
  private final EndpointStore store;
  private final OwnerMetrics metrics;

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

  EndpointSweeps(
      Owner owner, EndpointStore store, OwnerMetrics metrics, OwnerConfig config, long nowNanos) {
    this.owner = owner;
    this.store = store;
    this.metrics = metrics;
    this.idleEndpointNanos = config.idleEndpoint().toNanos();
    this.nextIdleCheckNanos = nowNanos + idleEndpointNanos / IDLE_CHECKS_PER_PERIOD;
    this.stallNanos =
        new RtsAttributes(0, config.qpTimeout(), 0, 0).timeoutNanos()
            * (config.qpRetryCount() + 2L);
    this.nextStallCheckNanos = nowNanos + stallNanos / STALL_CHECKS_PER_PERIOD;
  }

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
  void trimIdle() {
    Endpoint victim;
    while (store.isOverCapacity() && (victim = store.evictionCandidate()) != null) {
      evict(victim);
    }
  }

  private void evict(Endpoint victim) {
    metrics.endpointEvicted();
    owner.retire(victim, SliceStatus.ENDPOINT_RETIRED, null);
  }

  /**
   * Retires the idle endpoints no slice used for {@code idleEndpoint} (checked a few times per
   * period): their QPs are destroyed and their store slots freed; the next slice to that peer
   * device connects again.
   *
   * @return how many it retired
   */
  int retireUnused(long nowNanos) {
    if (idleEndpointNanos == 0 || nowNanos - nextIdleCheckNanos < 0) {
      return 0;
    }
    nextIdleCheckNanos = nowNanos + idleEndpointNanos / IDLE_CHECKS_PER_PERIOD;
    int retired = 0;
    for (Endpoint ep : store.snapshot()) {
      if (ep.isIdle() && ep.unusedFor(nowNanos) >= idleEndpointNanos) {
        metrics.endpointIdleRetired();
        owner.retire(ep, SliceStatus.ENDPOINT_RETIRED, null);
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
   * @param inFlight the owner's work requests in flight
   * @return how many it retired
   */
  int retireStalled(long nowNanos, int inFlight) {
    if (nowNanos - nextStallCheckNanos < 0) {
      return 0;
    }
    nextStallCheckNanos = nowNanos + stallNanos / STALL_CHECKS_PER_PERIOD;
    if (inFlight == 0) {
      return 0;
    }
    int retired = 0;
    for (Endpoint ep : store.snapshot()) {
      long quiet = ep.quietFor(nowNanos);
      if (ep.state() == EndpointState.CONNECTED && ep.outstanding() > 0 && quiet >= stallNanos) {
        metrics.endpointStalled();
        owner.retire(
            ep,
            SliceStatus.ENDPOINT_RETIRED,
            new VteException(
                ErrorCode.PEER_UNREACHABLE,
                "no work request to "
                    + ep.path()
                    + " completed for "
                    + quiet / 1_000_000
                    + " ms with "
                    + ep.outstanding()
                    + " in flight, past the QPs' timeout x (retry count + 2): its QP is stuck or"
                    + " the peer's is gone"));
        retired++;
      }
    }
    return retired;
  }
}
