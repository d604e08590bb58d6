package io.vte.engine.impl.owner.endpoint;

import io.vte.engine.impl.rail.Slice;
import io.vte.handshake.NicPath;
import io.vte.verbs.QueuePair;
import java.util.ArrayDeque;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The connection of one owner to one peer NIC path: its QPs, the work requests it has in flight,
 * the slices waiting for it and where its handshake stands. Its state changes only through the
 * transition methods below, each of which keeps the fields that belong together consistent (the
 * lifecycle through {@link EndpointState#canMoveTo}). Confined to its owner's event loop: nothing
 * is touched from another thread.
 */
public final class Endpoint {

  private final EndpointKey key;
  private final QueuePair[] qps;
  private final int[] psns;
  private final int[] qpOutstanding;
  private final ArrayDeque<Slice> pending = new ArrayDeque<>();
  private EndpointState state = EndpointState.NEW;
  private long generation;
  private long peerGeneration = -1;
  private int wireVersion;
  private int outstanding;
  private int nextQp;
  private boolean inReadyList;

  private long handshakeStartNanos;
  private long handshakeDeadlineNanos;
  private int handshakeAttempts;

  /** When an active endpoint told SIMULTANEOUS_OPEN asks again; 0 when not waiting. */
  private long reaskAtNanos;

  /** When a refused active endpoint asks again after backing off; 0 when not. */
  private long retryAtNanos;

  /**
   * A passive endpoint connected but not yet told by the peer that its QPs are in RTS: nothing is
   * posted (the peer's NIC would drop it until a retransmit) until the peer's ready-to-use or the
   * deadline.
   */
  private boolean awaitingPeerReady;

  private long peerReadyDeadlineNanos;
  private long flushDeadlineNanos;

  /** When a slice was last queued on it or completed on it (idle retire). */
  private long lastUsedNanos;

  /** When a work request last completed, or it went from nothing in flight to some (stall). */
  private long progressNanos;

  private int retireStatus;
  private Throwable retireCause;

  /** Verbs run on its QPs off the owner's thread right now ({@code QpJobs}): not destroyed yet. */
  private boolean qpJobInFlight;

  /** Retired or failed while a QP job was in flight: destroyed when the job comes back. */
  private boolean destroyDeferred;

  /** Its QPs exist (they are made off the owner's thread after the endpoint is stored). */
  private boolean hasQps;

  /** The fence of its posted WRITEs once one failed ({@link WriteFence}); null before. */
  private WriteFence fence;

  /**
   * @param key its key in the owner's store
   * @param generation its generation
   * @param qpCount how many QPs it will have; they are {@link #attach attached} once made
   * @param nowNanos the owner's clock: it counts as used now
   */
  public Endpoint(EndpointKey key, long generation, int qpCount, long nowNanos) {
    this.key = key;
    this.generation = generation;
    this.qps = new QueuePair[qpCount];
    this.psns = new int[qpCount];
    for (int i = 0; i < qpCount; i++) {
      psns[i] = ThreadLocalRandom.current().nextInt(1 << 24);
    }
    this.qpOutstanding = new int[qpCount];
    this.lastUsedNanos = nowNanos;
  }

  /** Its key in the owner's store. */
  public EndpointKey key() {
    return key;
  }

  /** The peer NIC path. */
  public NicPath path() {
    return key.peer();
  }

  /** Its generation: a reply or job of another one is stale. */
  public long generation() {
    return generation;
  }

  /** The peer endpoint's generation it is connected to; -1 before. */
  public long peerGeneration() {
    return peerGeneration;
  }

  /** The control-plane wire version agreed with the peer (highest common), 0 until connected. */
  public int wireVersion() {
    return wireVersion;
  }

  /** Where it is in its lifecycle. */
  public EndpointState state() {
    return state;
  }

  /** How many QPs it has (or will have once made). */
  public int qpCount() {
    return qps.length;
  }

  /** Its QP {@code q}; null until its QPs are made. */
  public QueuePair qp(int q) {
    return qps[q];
  }

  /** A copy of its QPs (to hand to a job off the owner's thread). */
  public QueuePair[] qps() {
    return qps.clone();
  }

  /** The first packet sequence number of its QP {@code q}. */
  public int psn(int q) {
    return psns[q];
  }

  /** Takes the QPs made for it (in INIT). */
  public void attach(QueuePair[] made) {
    System.arraycopy(made, 0, qps, 0, qps.length);
    hasQps = true;
  }

  /** True once its QPs are made, until they are destroyed. */
  public boolean hasQps() {
    return hasQps;
  }

  /** A QP job of it starts off the owner's thread. */
  public void qpJobStarted() {
    qpJobInFlight = true;
  }

  /**
   * Its QP job is back (or will never come back: the verbs executor stopped).
   *
   * @return true when it was retired meanwhile and must be destroyed now
   */
  public boolean qpJobDone() {
    qpJobInFlight = false;
    boolean destroy = destroyDeferred;
    destroyDeferred = false;
    return destroy;
  }

  /** True while a QP job of it runs off the owner's thread. */
  public boolean qpJobInFlight() {
    return qpJobInFlight;
  }

  /**
   * Asks for its QPs to be destroyed.
   *
   * @return its QPs, now forgotten, when they may go now; null when there are none or a QP job is
   *     in flight (they go when it is back, {@link #qpJobDone})
   */
  public QueuePair[] detachQps() {
    if (qpJobInFlight) {
      destroyDeferred = true;
      return null;
    }
    if (!hasQps) {
      return null;
    }
    hasQps = false;
    return qps.clone();
  }

  /**
   * The one way the state changes.
   *
   * @throws IllegalStateException naming the endpoint and both states when {@link
   *     EndpointState#canMoveTo} forbids the move (a bug in the owner: nothing is changed)
   */
  private void moveTo(EndpointState next) {
    if (!state.canMoveTo(next)) {
      throw new IllegalStateException(this + " cannot move from " + state + " to " + next);
    }
    state = next;
  }

  /** Its QPs are made (active side): CONNECTING, its request sent or waiting for a slot. */
  public void beginConnecting() {
    moveTo(EndpointState.CONNECTING);
  }

  /** Its request goes now: the handshake deadline starts. */
  public void admitted(long nowNanos, long deadlineNanos) {
    handshakeStartNanos = nowNanos;
    handshakeDeadlineNanos = deadlineNanos;
  }

  /** A connect request goes under the current generation: no re-ask or retry is due any more. */
  public void requestSent() {
    reaskAtNanos = 0;
    retryAtNanos = 0;
    handshakeAttempts++;
  }

  /** Abandons what was asked under the old generation (its answer becomes stale). */
  public void renew(long newGeneration) {
    generation = newGeneration;
  }

  /** Told SIMULTANEOUS_OPEN: asks again at {@code atNanos} unless the peer's request comes. */
  public void reaskAt(long atNanos) {
    reaskAtNanos = atNanos;
  }

  /** Refused: tries again at {@code atNanos}. */
  public void retryAt(long atNanos) {
    retryAtNanos = atNanos;
  }

  /** True when its re-ask after SIMULTANEOUS_OPEN is due. */
  public boolean reaskDue(long nowNanos) {
    return reaskAtNanos != 0 && nowNanos - reaskAtNanos >= 0;
  }

  /** True when its retry after a refusal is due. */
  public boolean retryDue(long nowNanos) {
    return retryAtNanos != 0 && nowNanos - retryAtNanos >= 0;
  }

  /** When a refused active endpoint asks again; 0 when no retry is scheduled. */
  public long retryAtNanos() {
    return retryAtNanos;
  }

  /** When its connect request was first sent. */
  public long handshakeStartNanos() {
    return handshakeStartNanos;
  }

  /** When its handshake fails if still unanswered. */
  public long handshakeDeadlineNanos() {
    return handshakeDeadlineNanos;
  }

  /** Connect requests sent for it (first, retries and re-asks). */
  public int handshakeAttempts() {
    return handshakeAttempts;
  }

  /** The active side connected to the peer endpoint of {@code peerGen}: slices may be posted. */
  public void connectedActive(long peerGen, int version) {
    moveTo(EndpointState.CONNECTED);
    peerGeneration = peerGen;
    wireVersion = version;
  }

  /**
   * The passive side connected to the requester's QPs, which are still in INIT: nothing is posted
   * until the peer's ready-to-use or {@code readyDeadlineNanos}.
   */
  public void connectedPassive(long peerGen, int version, long readyDeadlineNanos) {
    moveTo(EndpointState.CONNECTED);
    peerGeneration = peerGen;
    wireVersion = version;
    awaitingPeerReady = true;
    peerReadyDeadlineNanos = readyDeadlineNanos;
  }

  /** True while a passive endpoint waits for the peer's ready-to-use. */
  public boolean awaitingPeerReady() {
    return awaitingPeerReady;
  }

  /** True once a passive endpoint waited long enough for the peer. */
  public boolean peerReadyOverdue(long nowNanos) {
    return nowNanos - peerReadyDeadlineNanos >= 0;
  }

  /** The peer's QPs are in RTS (or it waited long enough): it may post. */
  public void peerReady() {
    awaitingPeerReady = false;
  }

  /** The handshake failed: FAILED for good. */
  public void fail() {
    moveTo(EndpointState.FAILED);
  }

  /**
   * Takes it out of service; what is still in flight ends with {@code status} and {@code cause}
   * when it flushes.
   */
  public void retire(int status, Throwable cause) {
    moveTo(EndpointState.RETIRED);
    retireStatus = status;
    retireCause = cause;
  }

  /** How its flushed work ends, once retired. */
  public int retireStatus() {
    return retireStatus;
  }

  /** Why it was retired, or null. */
  public Throwable retireCause() {
    return retireCause;
  }

  /** Retired with work requests in flight: they are accounted for by {@code deadlineNanos}. */
  public void awaitFlush(long deadlineNanos) {
    flushDeadlineNanos = deadlineNanos;
  }

  /** True once its flush deadline has passed. */
  public boolean flushOverdue(long nowNanos) {
    return nowNanos - flushDeadlineNanos >= 0;
  }

  /** True when it is connected with nothing in flight and nothing queued: safe to evict. */
  public boolean isIdle() {
    return state == EndpointState.CONNECTED && outstanding == 0 && pending.isEmpty();
  }

  /** True once retired or failed. */
  public boolean isDead() {
    return state == EndpointState.RETIRED || state == EndpointState.FAILED;
  }

  /** True when it is connected and the peer is ready for what it posts. */
  public boolean canPost() {
    return state == EndpointState.CONNECTED && !awaitingPeerReady;
  }

  /** Queues a slice for it: used now. */
  public void queue(Slice slice, long nowNanos) {
    pending.add(slice);
    lastUsedNanos = nowNanos;
  }

  /** The next queued slice, or null. */
  public Slice pollPending() {
    return pending.pollFirst();
  }

  /** True when slices are queued on it. */
  public boolean hasPending() {
    return !pending.isEmpty();
  }

  /** How many slices are queued on it. */
  public int pendingCount() {
    return pending.size();
  }

  /** Takes its queued slices away (to a replacement): none is left here. */
  public ArrayDeque<Slice> takePending() {
    ArrayDeque<Slice> taken = new ArrayDeque<>(pending);
    pending.clear();
    return taken;
  }

  /** Queues slices taken from the endpoint it replaces, in their order. */
  public void requeue(ArrayDeque<Slice> carried) {
    pending.addAll(carried);
  }

  /**
   * Puts it in the owner's ready line unless it is there already.
   *
   * @return true when it was not in the line
   */
  public boolean enterReadyLine() {
    if (inReadyList) {
      return false;
    }
    inReadyList = true;
    return true;
  }

  /** Taken out of the owner's ready line. */
  public void leaveReadyLine() {
    inReadyList = false;
  }

  /** The QP to post to next, round robin. */
  public int nextQp() {
    int q = nextQp;
    nextQp = q + 1 == qps.length ? 0 : q + 1;
    return q;
  }

  /** Work requests {@code max} minus what QP {@code q} has in flight. */
  public int qpRoom(int q, int max) {
    return max - qpOutstanding[q];
  }

  /** True when some QP has fewer than {@code max} work requests in flight. */
  public boolean hasQpRoom(int max) {
    for (int q = 0; q < qps.length; q++) {
      if (qpOutstanding[q] < max) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code n} work requests went to QP {@code q}; the stall clock starts if nothing was in flight.
   */
  public void posted(int q, int n, long nowNanos) {
    if (outstanding == 0) {
      progressNanos = nowNanos;
    }
    qpOutstanding[q] += n;
    outstanding += n;
  }

  /** A work request of QP {@code q} completed (any status): progress, and used now. */
  public void completed(int q, long nowNanos) {
    qpOutstanding[q]--;
    outstanding--;
    lastUsedNanos = nowNanos;
    progressNanos = nowNanos;
  }

  /** A work request of QP {@code q} is accounted for without a completion (flush deadline). */
  public void forgotten(int q) {
    qpOutstanding[q]--;
    outstanding--;
  }

  /** Work requests it has in flight. */
  public int outstanding() {
    return outstanding;
  }

  /** Work requests QP {@code q} has in flight. */
  public int qpOutstanding(int q) {
    return qpOutstanding[q];
  }

  /** How long it has been unused at {@code nowNanos}. */
  public long unusedFor(long nowNanos) {
    return nowNanos - lastUsedNanos;
  }

  /** How long its work in flight has gone without a completion at {@code nowNanos}. */
  public long quietFor(long nowNanos) {
    return nowNanos - progressNanos;
  }

  /** Its fence, or null while none was asked. */
  public WriteFence fence() {
    return fence;
  }

  /**
   * Raises its fence.
   *
   * @return the new fence; null when it has one already
   */
  public WriteFence raiseFence() {
    if (fence != null) {
      return null;
    }
    fence = new WriteFence();
    return fence;
  }

  @Override
  public String toString() {
    return String.format(
        "Endpoint[%s gen %d %s outstanding %d pending %d]",
        key, generation, state, outstanding, pending.size());
  }
}
