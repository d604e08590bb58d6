package io.vte.engine.impl.owner;

import io.vte.engine.impl.rail.Slice;
import io.vte.handshake.NicPath;
import io.vte.verbs.QueuePair;
import java.util.ArrayDeque;
import java.util.concurrent.ThreadLocalRandom;

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

  /** The control-plane wire version agreed with the peer (highest common), 0 until connected. */
  int wireVersion;

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

  /**
   * When a work request of it last completed, or it went from nothing in flight to some: how long
   * its QPs went without progress ({@link Owner} retires it when that outlasts RC's own failure).
   */
  long progressNanos;

  int retireStatus;
  Throwable retireCause;

  /** Verbs run on its QPs off the owner's thread right now ({@link QpJobs}): not destroyed yet. */
  boolean qpJobInFlight;

  /** Retired or failed while a QP job was in flight: destroyed when the job comes back. */
  boolean destroyDeferred;

  /** Its QPs exist (they are made off the owner's thread after the endpoint is stored). */
  private boolean hasQps;

  /** The fence of its posted WRITEs once one failed ({@link WriteFence}); null before. */
  WriteFence fence;

  /**
   * @param path the peer NIC path (the store key)
   * @param generation its generation
   * @param qpCount how many QPs it will have; they are {@link #attach attached} once made
   */
  Endpoint(NicPath path, long generation, int qpCount) {
    this.path = path;
    this.generation = generation;
    this.qps = new QueuePair[qpCount];
    this.psns = new int[qpCount];
    for (int i = 0; i < qpCount; i++) {
      psns[i] = ThreadLocalRandom.current().nextInt(1 << 24);
    }
    this.qpOutstanding = new int[qpCount];
  }

  /** Takes the QPs made for it (in INIT). */
  void attach(QueuePair[] made) {
    System.arraycopy(made, 0, qps, 0, qps.length);
    hasQps = true;
  }

  /** Its QPs are being destroyed: nothing may touch them, nor destroy them again. */
  void qpsDestroyed() {
    hasQps = false;
  }

  /**
   * @return true once its QPs are made, until they are destroyed
   */
  boolean hasQps() {
    return hasQps;
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
