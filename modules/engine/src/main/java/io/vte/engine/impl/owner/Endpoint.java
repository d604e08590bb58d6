package io.vte.engine.impl.owner;

import io.vte.engine.impl.rail.Slice;
import io.vte.handshake.NicPath;
import io.vte.verbs.QueuePair;
import java.util.ArrayDeque;

/**
 * The connection of one owner to one peer NIC path: its QPs, the work requests it has in flight and
 * the slices waiting for it. Confined to its owner's event loop: no field is touched from another
 * thread.
 */
final class Endpoint {

  /** The peer NIC path: the endpoint's key in its owner's store. */
  final NicPath path;

  final QueuePair[] qps;
  final int[] psns;
  final int[] qpOutstanding;
  final ArrayDeque<Slice> pending = new ArrayDeque<>();
  long generation;
  long peerGeneration = -1;
  private EndpointState state = EndpointState.NEW;
  int outstanding;
  int nextQp;
  boolean inReadyList;
  long handshakeStartNanos;
  long handshakeDeadlineNanos;

  /** When an active endpoint told SIMULTANEOUS_OPEN sends its request again; 0 when not waiting. */
  long reaskAtNanos;

  /** Connect requests sent for this endpoint (first, retries and re-asks). */
  int handshakeAttempts;

  /** When a refused active endpoint sends its request again after backing off; 0 when not. */
  long retryAtNanos;

  /**
   * A passive endpoint connected but not yet told by the peer that its QPs are in RTS: nothing is
   * posted (the peer's NIC would drop it until a retransmit), until the peer's ready-to-use or
   * {@link #peerReadyDeadlineNanos}.
   */
  boolean awaitingPeerReady;

  /** When a passive endpoint posts even without the peer's ready-to-use (it may be lost). */
  long peerReadyDeadlineNanos;

  long flushDeadlineNanos;

  /** When a slice was last queued on it or completed on it (idle retire). */
  long lastUsedNanos;

  int retireStatus;
  Throwable retireCause;

  /** The fence of its posted WRITEs once one failed ({@link WriteFence}); null before. */
  WriteFence fence;

  Endpoint(NicPath path, long generation, QueuePair[] qps, int[] psns) {
    this.path = path;
    this.generation = generation;
    this.qps = qps;
    this.psns = psns;
    this.qpOutstanding = new int[qps.length];
  }

  /**
   * @return where it is in its lifecycle
   */
  EndpointState state() {
    return state;
  }

  /**
   * The one way the state changes.
   *
   * @param next the new state
   * @throws IllegalStateException naming the endpoint and both states when {@link
   *     EndpointState#canMoveTo} forbids the move (a bug in the owner: nothing is changed)
   */
  void moveTo(EndpointState next) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException(this + " cannot move from " + state + " to " + next);
    }
    state = next;
  }

  /**
   * @return true when it is connected with nothing in flight and nothing queued: safe to evict
   */
  boolean isIdle() {
    return state == EndpointState.CONNECTED && outstanding == 0 && pending.isEmpty();
  }

  /**
   * @return true once retired or failed
   */
  boolean isDead() {
    return state == EndpointState.RETIRED || state == EndpointState.FAILED;
  }

  @Override
  public String toString() {
    return "Endpoint["
        + path
        + " gen "
        + generation
        + " "
        + state
        + " outstanding "
        + outstanding
        + " pending "
        + pending.size()
        + "]";
  }
}
