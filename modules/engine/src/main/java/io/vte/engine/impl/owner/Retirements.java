package io.vte.engine.impl.owner;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.connect.Connector;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.owner.endpoint.EndpointStore;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.verbs.WcStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * How one owner takes endpoints out of service: QPs to ERR, queued slices ended, out of the store;
 * an endpoint with work requests in flight waits for their flushes (or the flush deadline) before
 * its QPs are destroyed, and every slice it posted ends exactly once ({@link WriteFences}).
 * Owner-confined.
 */
final class Retirements {

  private final Owner owner;
  private final OwnerConfig config;
  private final EndpointStore store;
  private final OwnerMetrics metrics;
  private final NanoClock clock;
  private final EndpointQps qps;
  private final Connector connector;
  private final WriteFences fences;
  private final WorkRequestSlots slots;

  /** Retired endpoints whose work requests in flight have not all flushed yet. */
  private final List<Endpoint> retiring = new ArrayList<>();

  Retirements(
      Owner owner,
      OwnerConfig config,
      EndpointStore store,
      OwnerMetrics metrics,
      NanoClock clock,
      EndpointQps qps,
      Connector connector,
      WriteFences fences,
      WorkRequestSlots slots) {
    this.owner = owner;
    this.config = config;
    this.store = store;
    this.metrics = metrics;
    this.clock = clock;
    this.qps = qps;
    this.connector = connector;
    this.fences = fences;
    this.slots = slots;
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
    ep.retire(status, cause);
    connector.forget(ep);
    if (store.remove(ep)) {
      metrics.wireVersionEnded(ep.key());
    }
    metrics.endpointRetired();
    // A QP job in flight means nothing was posted yet; the job's return destroys the QPs.
    if (ep.hasQps() && !ep.qpJobInFlight()) {
      qps.toError(ep);
    }
    owner.failPending(ep, status, cause);
    if (ep.outstanding() == 0) {
      qps.destroy(ep);
    } else {
      ep.awaitFlush(clock.nanoTime() + config.flushDeadline().toNanos());
      retiring.add(ep);
    }
  }

  /**
   * A work request of {@code ep} completed in error: its slice ends (a WRITE waits for the fence)
   * and the endpoint retires.
   */
  void failedCompletion(Endpoint ep, Slice slice, int status) {
    if (status == WcStatus.WR_FLUSH_ERR.code()) {
      boolean retired = ep.state() == EndpointState.RETIRED;
      fences.endPosted(
          ep,
          slice,
          retired ? ep.retireStatus() : SliceStatus.ENDPOINT_RETIRED,
          retired ? ep.retireCause() : null);
      owner.retire(ep, SliceStatus.ENDPOINT_RETIRED, null);
    } else if (status == WcStatus.REM_ABORT_ERR.code()) {
      // The peer's QP is gone (it evicted or closed its end): nothing wrong with the slice, which
      // goes again on a fresh endpoint, as a flushed one does.
      VteException cause =
          new VteException(
              ErrorCode.PEER_UNREACHABLE,
              "the peer closed its end of " + ep.path() + "; reconnecting");
      fences.endPosted(ep, slice, SliceStatus.ENDPOINT_RETIRED, cause);
      owner.retire(ep, SliceStatus.ENDPOINT_RETIRED, cause);
    } else {
      fences.endPosted(ep, slice, status, null);
      owner.retire(
          ep,
          SliceStatus.ENDPOINT_RETIRED,
          new VteException(
              ErrorCode.TRANSFER_FAILED,
              "work completion " + WcStatus.of(status) + " on " + ep.path()));
    }
  }

  /** A work request of a retired endpoint completed: its QPs go once the last one is in. */
  void completedWhileRetired(Endpoint ep) {
    if (ep.outstanding() == 0 && retiring.remove(ep)) {
      qps.destroy(ep);
    }
  }

  /**
   * Accounts for the work requests of the endpoints past their flush deadline and destroys them.
   *
   * @return how many endpoints it ended
   */
  int expire() {
    if (retiring.isEmpty()) {
      return 0;
    }
    long now = clock.nanoTime();
    int expired = 0;
    for (int i = retiring.size() - 1; i >= 0; i--) {
      Endpoint ep = retiring.get(i);
      if (ep.flushOverdue(now)) {
        expired++;
        retiring.remove(i);
        forceFlush(ep);
        qps.destroy(ep);
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
        ep.forgotten(slots.qp(slot));
        slots.release(slot);
        fences.endPosted(ep, slice, ep.retireStatus(), ep.retireCause());
        n++;
      }
    }
    metrics.forcedFlushes(n);
  }

  /** Completes every in-flight WR of the retiring endpoints now (no flush will come). */
  void flushAll() {
    for (Endpoint ep : new ArrayList<>(retiring)) {
      forceFlush(ep);
      qps.destroy(ep);
    }
    retiring.clear();
  }

  /** Destroys the QPs of the retiring endpoints once the owner stopped running. */
  void destroyAfterStop() {
    for (Endpoint ep : retiring) {
      qps.destroyAfterStop(ep);
    }
    retiring.clear();
  }

  /**
   * @return endpoints retired but still waiting for flushes
   */
  int count() {
    return retiring.size();
  }
}
