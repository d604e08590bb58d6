package io.vte.engine.impl.owner;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import java.util.ArrayDeque;

/**
 * One owner's posting: the line of connected endpoints with slices queued, and the posts that turn
 * them into work requests while credits ({@link WorkRequestSlots}) and QP depth allow, spread over
 * each endpoint's QPs. Owner-confined; allocates nothing per slice.
 */
final class WorkPoster {

  private final Owner owner;
  private final WorkRequestSlots slots;
  private final OwnerMetrics metrics;
  private final int maxPerQp;
  private final WorkRequestBatch batch;
  private final ArrayDeque<Endpoint> ready = new ArrayDeque<>();

  /** The device checks {@link WrFlags#INTEGRITY} work requests end to end. */
  private final boolean deviceChecks;

  /**
   * @param owner ends refused slices and retires their endpoint
   * @param slots the owner's credits
   * @param metrics counts the posts
   * @param config work requests one QP may have in flight, and posted per call at most
   * @param deviceChecks the device checks {@link WrFlags#INTEGRITY} work requests end to end
   */
  WorkPoster(
      Owner owner,
      WorkRequestSlots slots,
      OwnerMetrics metrics,
      OwnerConfig config,
      boolean deviceChecks) {
    this.deviceChecks = deviceChecks;
    this.owner = owner;
    this.slots = slots;
    this.metrics = metrics;
    this.maxPerQp = config.maxOutstandingPerQp();
    this.batch = WorkRequestBatch.allocate(Math.min(config.pollBatchSize(), maxPerQp));
  }

  /** Puts an endpoint in line for posting, once. */
  void markReady(Endpoint ep) {
    if (ep.enterReadyLine()) {
      ready.addLast(ep);
    }
  }

  /**
   * Posts for the endpoints in line, each once per call, while credits last.
   *
   * @param nowNanos the owner's cycle clock
   * @return work requests posted
   */
  int postReady(long nowNanos) {
    int posted = 0;
    int rounds = ready.size();
    while (rounds-- > 0 && slots.hasFree()) {
      Endpoint ep = ready.pollFirst();
      ep.leaveReadyLine();
      if (!ep.canPost()) {
        continue;
      }
      posted += post(ep, nowNanos);
      // Still work and QP room: it waits for credits. Without QP room a completion re-marks it.
      if (ep.state() == EndpointState.CONNECTED && ep.hasPending() && ep.hasQpRoom(maxPerQp)) {
        markReady(ep);
      }
    }
    return posted;
  }

  private int post(Endpoint ep, long nowNanos) {
    int posted = 0;
    int qps = ep.qpCount();
    for (int k = 0; k < qps && slots.hasFree() && ep.hasPending(); k++) {
      int q = ep.nextQp();
      // Spread what is queued evenly over the QPs not yet visited this round.
      int share = (ep.pendingCount() + (qps - k) - 1) / (qps - k);
      int room = Math.min(share, ep.qpRoom(q, maxPerQp));
      batch.clear();
      Slice slice;
      while (room > 0 && slots.hasFree() && !batch.isFull() && (slice = ep.pollPending()) != null) {
        if (slice.callback().isAbandoned()) {
          owner.complete(slice, SliceStatus.ABANDONED, null);
          continue;
        }
        if (!deviceChecks) {
          slice.checkIntegrity(false); // it goes unchecked here, and is not counted as checked
        }
        batch.add(
            slots.acquire(slice, ep, q),
            slice.opcode(),
            slice.checksIntegrity() ? WrFlags.SIGNALED | WrFlags.INTEGRITY : WrFlags.SIGNALED,
            slice.localAddress(),
            slice.length(),
            slice.lkey(),
            slice.remoteAddress(),
            slice.rkey());
        room--;
      }
      int size = batch.size();
      if (size == 0) {
        continue;
      }
      QueuePair qp = ep.qp(q);
      int rc = qp.postSend(batch);
      int accepted = rc == PostStatus.OK ? size : Math.max(0, batch.badIndex());
      ep.posted(q, accepted, nowNanos);
      posted += accepted;
      metrics.slicesPosted(accepted);
      if (rc != PostStatus.OK) {
        refused(ep, qp, rc, accepted, size);
        return posted;
      }
    }
    return posted;
  }

  /**
   * The provider refused the batch from {@code accepted} on: those slices end, the endpoint goes.
   */
  private void refused(Endpoint ep, QueuePair qp, int rc, int accepted, int size) {
    VteException cause =
        new VteException(
            ErrorCode.TRANSFER_FAILED,
            "posting to QP " + qp.qpNum() + " of " + ep.path() + " failed: " + PostStatus.name(rc));
    for (int i = accepted; i < size; i++) {
      int slot = slots.slotOf(batch.wrId(i));
      Slice failed = slots.slice(slot);
      slots.release(slot);
      owner.complete(failed, SliceStatus.POST_FAILED, cause);
    }
    owner.retire(ep, SliceStatus.ENDPOINT_RETIRED, cause);
  }
}
