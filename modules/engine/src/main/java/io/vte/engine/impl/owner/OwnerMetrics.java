package io.vte.engine.impl.owner;

import io.vte.engine.impl.owner.endpoint.EndpointKey;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Counters and gauges of one owner. Written only by the owner's thread (single writer: a plain read
 * and an ordered store, no volatile write or CAS on the hot path), read by any thread (acquire);
 * histograms are recorded allocation-free and read as cumulative copies.
 */
public final class OwnerMetrics {

  private static final long MAX_RECORDED_NANOS = TimeUnit.SECONDS.toNanos(60);

  private static final int SLICES_ACCEPTED = 0;
  private static final int SLICES_POSTED = 1;
  private static final int SLICES_COMPLETED = 2;
  private static final int SLICES_FAILED = 3;
  private static final int HANDSHAKES_ACTIVE = 4;
  private static final int HANDSHAKES_PASSIVE = 5;
  private static final int HANDSHAKES_FAILED = 6;
  private static final int HANDSHAKES_REASKED = 7;
  private static final int HANDSHAKE_ATTEMPTS = 8;
  private static final int HANDSHAKE_RETRIES = 9;
  private static final int HANDSHAKE_BACKOFF_NANOS = 10;
  private static final int STALE_REPLIES_DROPPED = 11;
  private static final int STALE_REQUESTS_REJECTED = 12;
  private static final int WRITE_FENCES_ASKED = 13;
  private static final int WRITE_FENCES_CONFIRMED = 14;
  private static final int PEER_DISCONNECTS = 15;
  private static final int SIMULTANEOUS_OPENS_KEPT = 16;
  private static final int SIMULTANEOUS_OPENS_YIELDED = 17;
  private static final int ENDPOINTS_ALIVE = 18;
  private static final int ENDPOINTS_RETIRED = 19;
  private static final int ENDPOINTS_EVICTED = 20;
  private static final int ENDPOINTS_IDLE_RETIRED = 21;
  private static final int ENDPOINTS_STALLED = 22;
  private static final int ENDPOINT_STORE_OVERFLOWS = 23;
  private static final int QP_FATAL_EVENTS = 24;
  private static final int CQ_ERRORS = 25;
  private static final int FORCED_FLUSHES = 26;
  private static final int STRAY_COMPLETIONS = 27;
  private static final int CALLBACK_ERRORS = 28;
  private static final int MAX_POLL_GAP_NANOS = 29;
  private static final int VERSION_MISMATCHES = 30;
  private static final int ENDPOINTS_PEER_GONE = 31;
  private static final int COUNTERS = 32;

  private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);

  /** The counters by index; each written by the owner's thread only, with ordered stores. */
  private final long[] values = new long[COUNTERS];

  private final Map<String, Integer> wireVersions = new ConcurrentHashMap<>();
  private final SingleWriterRecorder pollGapRecorder =
      new SingleWriterRecorder(1, MAX_RECORDED_NANOS, 3);
  private final SingleWriterRecorder handshakeRecorder =
      new SingleWriterRecorder(1, MAX_RECORDED_NANOS, 3);
  private final Histogram pollGaps = new Histogram(1, MAX_RECORDED_NANOS, 3);
  private final Histogram handshakeLatencies = new Histogram(1, MAX_RECORDED_NANOS, 3);

  /** Creates zeroed metrics. */
  public OwnerMetrics() {}

  void sliceAccepted() {
    add(SLICES_ACCEPTED, 1);
  }

  /** Counts a handshake that found no common wire version. Owner's thread only. */
  public void versionMismatch() {
    add(VERSION_MISMATCHES, 1);
  }

  void endpointPeerGone() {
    add(ENDPOINTS_PEER_GONE, 1);
  }

  long endpointsPeerGone() {
    return get(ENDPOINTS_PEER_GONE);
  }

  /** Records the wire version agreed with the peer of an endpoint. Owner's thread only. */
  public void wireVersionAgreed(EndpointKey endpoint, int version) {
    wireVersions.put(endpoint.toString(), version);
  }

  void wireVersionEnded(EndpointKey endpoint) {
    wireVersions.remove(endpoint.toString());
  }

  /**
   * @return handshakes (either side) that failed because the two wire version ranges shared none
   */
  public long versionMismatches() {
    return get(VERSION_MISMATCHES);
  }

  /**
   * @return the wire version agreed with each peer NIC path this owner has a live endpoint to
   */
  public Map<String, Integer> wireVersions() {
    return Map.copyOf(wireVersions);
  }

  /** Counts a request sent again after SIMULTANEOUS_OPEN. Owner's thread only. */
  public void handshakeReasked() {
    add(HANDSHAKES_REASKED, 1);
  }

  void endpointIdleRetired() {
    add(ENDPOINTS_IDLE_RETIRED, 1);
  }

  void endpointStalled() {
    add(ENDPOINTS_STALLED, 1);
  }

  /** Counts a connect request sent by an active handshake. Owner's thread only. */
  public void handshakeAttempted() {
    add(HANDSHAKE_ATTEMPTS, 1);
  }

  /** Counts a request sent again after a refusal and a backoff wait. Owner's thread only. */
  public void handshakeRetried() {
    add(HANDSHAKE_RETRIES, 1);
  }

  /** Counts the wait scheduled before a refused handshake is tried again. Owner's thread only. */
  public void handshakeBackedOff(long waitNanos) {
    add(HANDSHAKE_BACKOFF_NANOS, waitNanos);
  }

  void slicesPosted(int n) {
    add(SLICES_POSTED, n);
  }

  void sliceEnded(boolean ok) {
    if (ok) {
      add(SLICES_COMPLETED, 1);
    } else {
      add(SLICES_FAILED, 1);
    }
  }

  /** Counts a handshake started, active or passive. Owner's thread only. */
  public void handshakeStarted(boolean active) {
    if (active) {
      add(HANDSHAKES_ACTIVE, 1);
    } else {
      add(HANDSHAKES_PASSIVE, 1);
    }
  }

  /** Counts an active handshake that failed. Owner's thread only. */
  public void handshakeFailed() {
    add(HANDSHAKES_FAILED, 1);
  }

  /** Records the latency of a successful active handshake. Owner's thread only. */
  public void handshakeSucceeded(long latencyNanos) {
    handshakeRecorder.recordValue(clamp(latencyNanos));
  }

  /**
   * Counts a reply or QP job dropped because its endpoint changed meanwhile. Owner's thread only.
   */
  public void staleReplyDropped() {
    add(STALE_REPLIES_DROPPED, 1);
  }

  /** Counts a passive request rejected as older than the connected peer. Owner's thread only. */
  public void staleRequestRejected() {
    add(STALE_REQUESTS_REJECTED, 1);
  }

  void writeFenceAsked() {
    add(WRITE_FENCES_ASKED, 1);
  }

  void writeFenceConfirmed() {
    add(WRITE_FENCES_CONFIRMED, 1);
  }

  /** Counts an endpoint retired because its peer disconnected it. Owner's thread only. */
  public void peerDisconnected() {
    add(PEER_DISCONNECTS, 1);
  }

  /** Counts a simultaneous open, kept or yielded. Owner's thread only. */
  public void simultaneousOpen(boolean kept) {
    if (kept) {
      add(SIMULTANEOUS_OPENS_KEPT, 1);
    } else {
      add(SIMULTANEOUS_OPENS_YIELDED, 1);
    }
  }

  void endpointsAlive(int n) {
    set(ENDPOINTS_ALIVE, n);
  }

  void endpointRetired() {
    add(ENDPOINTS_RETIRED, 1);
  }

  void endpointEvicted() {
    add(ENDPOINTS_EVICTED, 1);
  }

  void endpointStoreOverflow() {
    add(ENDPOINT_STORE_OVERFLOWS, 1);
  }

  void qpFatal() {
    add(QP_FATAL_EVENTS, 1);
  }

  void cqError() {
    add(CQ_ERRORS, 1);
  }

  void forcedFlushes(int n) {
    add(FORCED_FLUSHES, n);
  }

  void strayCompletion() {
    add(STRAY_COMPLETIONS, 1);
  }

  void callbackError() {
    add(CALLBACK_ERRORS, 1);
  }

  void pollGap(long nanos) {
    if (nanos > get(MAX_POLL_GAP_NANOS)) {
      set(MAX_POLL_GAP_NANOS, nanos);
    }
    pollGapRecorder.recordValue(clamp(nanos));
  }

  /** Owner's thread only: a plain read of its own last store, then an ordered store. */
  private void add(int counter, long n) {
    VALUES.setRelease(values, counter, (long) VALUES.get(values, counter) + n);
  }

  private void set(int counter, long value) {
    VALUES.setRelease(values, counter, value);
  }

  private long get(int counter) {
    return (long) VALUES.getAcquire(values, counter);
  }

  private static long clamp(long nanos) {
    return Math.max(1, Math.min(nanos, MAX_RECORDED_NANOS));
  }

  /**
   * @return slices the owner took from its queue; equals {@link #slicesCompleted()} + {@link
   *     #slicesFailed()} plus the slices still queued on endpoints or in flight (every accepted
   *     slice ends exactly once)
   */
  public long slicesAccepted() {
    return get(SLICES_ACCEPTED);
  }

  /**
   * @return active handshakes sent again after a SIMULTANEOUS_OPEN answer whose peer request never
   *     came
   */
  public long handshakesReasked() {
    return get(HANDSHAKES_REASKED);
  }

  /**
   * @return endpoints retired because no slice used them for {@code idleEndpointMs}
   */
  public long endpointsIdleRetired() {
    return get(ENDPOINTS_IDLE_RETIRED);
  }

  /**
   * @return endpoints retired because work requests were in flight on them and none completed for
   *     longer than their QPs' timeout x (retry count + 2)
   */
  public long endpointsStalled() {
    return get(ENDPOINTS_STALLED);
  }

  /**
   * @return connect requests sent by active handshakes: first attempts, retries after a backoff
   *     wait and re-asks after SIMULTANEOUS_OPEN
   */
  public long handshakeAttempts() {
    return get(HANDSHAKE_ATTEMPTS);
  }

  /**
   * @return connect requests sent again after a refused attempt and a backoff wait
   */
  public long handshakeRetries() {
    return get(HANDSHAKE_RETRIES);
  }

  /**
   * @return total backoff wait scheduled before those retries, in nanoseconds
   */
  public long handshakeBackoffNanos() {
    return get(HANDSHAKE_BACKOFF_NANOS);
  }

  /**
   * @return slices handed to the provider
   */
  public long slicesPosted() {
    return get(SLICES_POSTED);
  }

  /**
   * @return slices completed with OK
   */
  public long slicesCompleted() {
    return get(SLICES_COMPLETED);
  }

  /**
   * @return slices completed with any other status
   */
  public long slicesFailed() {
    return get(SLICES_FAILED);
  }

  /**
   * @return active handshakes started
   */
  public long handshakesActive() {
    return get(HANDSHAKES_ACTIVE);
  }

  /**
   * @return passive handshakes accepted
   */
  public long handshakesPassive() {
    return get(HANDSHAKES_PASSIVE);
  }

  /**
   * @return active handshakes that failed (reject, error or deadline)
   */
  public long handshakesFailed() {
    return get(HANDSHAKES_FAILED);
  }

  /**
   * @return handshake replies dropped because their endpoint was replaced or retired meanwhile
   */
  public long staleRepliesDropped() {
    return get(STALE_REPLIES_DROPPED);
  }

  /**
   * @return passive requests rejected because an endpoint with a newer peer generation exists
   */
  public long staleRequestsRejected() {
    return get(STALE_REQUESTS_REJECTED);
  }

  /**
   * @return endpoints whose failed WRITEs were fenced: the peer was asked to retire its end
   */
  public long writeFencesAsked() {
    return get(WRITE_FENCES_ASKED);
  }

  /**
   * @return fences the peer confirmed (DISCONNECTED): their WRITEs went on to be retried
   */
  public long writeFencesConfirmed() {
    return get(WRITE_FENCES_CONFIRMED);
  }

  /**
   * @return endpoints retired because their peer disconnected them (its fence)
   */
  public long peerDisconnects() {
    return get(PEER_DISCONNECTS);
  }

  /**
   * @return simultaneous opens where this side kept the active role
   */
  public long simultaneousOpensKept() {
    return get(SIMULTANEOUS_OPENS_KEPT);
  }

  /**
   * @return simultaneous opens where this side gave up its attempt and accepted
   */
  public long simultaneousOpensYielded() {
    return get(SIMULTANEOUS_OPENS_YIELDED);
  }

  /**
   * @return endpoints currently in the store
   */
  public long endpointsAlive() {
    return get(ENDPOINTS_ALIVE);
  }

  /**
   * @return endpoints retired
   */
  public long endpointsRetired() {
    return get(ENDPOINTS_RETIRED);
  }

  /**
   * @return idle endpoints evicted to make room
   */
  public long endpointsEvicted() {
    return get(ENDPOINTS_EVICTED);
  }

  /**
   * @return endpoints admitted over the store's capacity because every stored one was busy
   */
  public long endpointStoreOverflows() {
    return get(ENDPOINT_STORE_OVERFLOWS);
  }

  /**
   * @return QP fatal events handled
   */
  public long qpFatalEvents() {
    return get(QP_FATAL_EVENTS);
  }

  /**
   * @return CQ errors (overflow): must stay 0, credits make it impossible
   */
  public long cqErrors() {
    return get(CQ_ERRORS);
  }

  /**
   * @return work requests accounted by the owner because no flushed completion came by the deadline
   */
  public long forcedFlushes() {
    return get(FORCED_FLUSHES);
  }

  /**
   * @return completions that matched no work request in flight (dropped)
   */
  public long strayCompletions() {
    return get(STRAY_COMPLETIONS);
  }

  /**
   * @return slice callbacks that threw
   */
  public long callbackErrors() {
    return get(CALLBACK_ERRORS);
  }

  /**
   * @return the longest time between two CQ polls while work was in flight, in nanoseconds
   */
  public long maxPollGapNanos() {
    return get(MAX_POLL_GAP_NANOS);
  }

  /**
   * @return a copy of all CQ poll gaps recorded so far, in nanoseconds
   */
  public synchronized Histogram pollGapHistogram() {
    pollGaps.add(pollGapRecorder.getIntervalHistogram());
    return pollGaps.copy();
  }

  /**
   * @return a copy of all successful active handshake latencies so far, in nanoseconds
   */
  public synchronized Histogram handshakeLatencyHistogram() {
    handshakeLatencies.add(handshakeRecorder.getIntervalHistogram());
    return handshakeLatencies.copy();
  }
}
