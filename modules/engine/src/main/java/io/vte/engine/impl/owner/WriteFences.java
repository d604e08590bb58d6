package io.vte.engine.impl.owner;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.WriteFence;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.WrOpcode;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How one owner ends the slices it posted that did not complete: a WRITE waits for its endpoint's
 * {@link WriteFence} (the peer asked to retire its end, once per endpoint), anything else ends at
 * once. Owner-confined.
 */
final class WriteFences {

  private final Owner owner;
  private final OwnerMetrics metrics;
  private final Function<Endpoint, Future<ConnectReply>> disconnect;

  /** Endpoints whose fence waits for the peer's answer. */
  private final List<Endpoint> fencing = new ArrayList<>();

  /** The owner is closing: no retry follows, nothing is fenced any more. */
  private boolean closing;

  /**
   * @param owner ends the slices and hears the peer's answers
   * @param metrics counts the fences
   * @param disconnect asks the peer to retire its end of an endpoint
   */
  WriteFences(
      Owner owner, OwnerMetrics metrics, Function<Endpoint, Future<ConnectReply>> disconnect) {
    this.owner = owner;
    this.metrics = metrics;
    this.disconnect = disconnect;
  }

  /**
   * Ends a slice that was posted on {@code ep} and did not complete: a WRITE waits for the
   * endpoint's fence (asked now if it is the first) before it is retried; anything else, and a
   * WRITE that ends for good (engine closed, peer gone), ends at once, and so does everything once
   * the owner is closing.
   */
  void endPosted(Endpoint ep, Slice slice, int status, Throwable cause) {
    // A WRITE that ends for good needs no fence: no retry can race with it.
    if (slice.opcode() != WrOpcode.RDMA_WRITE
        || status == SliceStatus.ENGINE_CLOSED
        || status == SliceStatus.PEER_GONE
        || closing) {
      owner.complete(slice, status, cause);
      return;
    }
    WriteFence fence = ep.raiseFence();
    if (fence != null) {
      fencing.add(ep);
      metrics.writeFenceAsked();
      OwnerProxy proxy = owner.proxy();
      disconnect.apply(ep).onComplete(ar -> proxy.fenced(ep, ar));
    } else {
      fence = ep.fence();
    }
    if (fence.pending()) {
      fence.hold(slice, status, cause);
    } else if (fence.confirmed()) {
      owner.complete(slice, status, cause);
    } else {
      owner.complete(slice, SliceStatus.FENCE_FAILED, fence.failure());
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
    Throwable failure = failure(ep, answer);
    if (failure == null) {
      metrics.writeFenceConfirmed();
    }
    for (WriteFence.Held h : ep.fence().settle(failure)) {
      if (failure == null) {
        owner.complete(h.slice(), h.status(), h.cause());
      } else {
        owner.complete(h.slice(), SliceStatus.FENCE_FAILED, failure);
      }
    }
  }

  /**
   * @return null when the peer confirmed the disconnect, else a typed cause: the channel's
   *     (PEER_UNREACHABLE, TIMED_OUT) or TRANSFER_FAILED for any other answer
   */
  private static Throwable failure(Endpoint ep, AsyncResult<ConnectReply> answer) {
    if (answer.succeeded() && answer.result().getStatus() == ConnectStatus.DISCONNECTED) {
      return null;
    }
    String what =
        "a WRITE posted to "
            + ep.path()
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

  /** The owner closes: the slices held by fences still waiting end, and nothing is fenced again. */
  void close(Throwable cause) {
    closing = true;
    for (Endpoint ep : fencing) {
      for (WriteFence.Held h : ep.fence().settle(cause)) {
        owner.complete(h.slice(), SliceStatus.ENGINE_CLOSED, cause);
      }
    }
    fencing.clear();
  }
}
