package io.vte.engine.impl.owner;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Counters and gauges of one owner. Written only by the owner's thread (single writer, volatile so
 * any thread reads a recent value); histograms are recorded allocation-free and read as cumulative
 * copies.
 */
public final class OwnerMetrics {

  private static final long MAX_RECORDED_NANOS = TimeUnit.SECONDS.toNanos(60);

  private volatile long slicesAccepted;
  private volatile long slicesPosted;
  private volatile long slicesCompleted;
  private volatile long slicesFailed;
  private volatile long handshakesActive;
  private volatile long handshakesPassive;
  private volatile long handshakesFailed;
  private volatile long handshakesReasked;
  private volatile long handshakeAttempts;
  private volatile long handshakeRetries;
  private volatile long handshakeBackoffNanos;
  private volatile long staleRepliesDropped;
  private volatile long staleRequestsRejected;
  private volatile long writeFencesAsked;
  private volatile long writeFencesConfirmed;
  private volatile long peerDisconnects;
  private volatile long simultaneousOpensKept;
  private volatile long simultaneousOpensYielded;
  private volatile long endpointsAlive;
  private volatile long endpointsRetired;
  private volatile long endpointsEvicted;
  private volatile long endpointsIdleRetired;
  private volatile long endpointStoreOverflows;
  private volatile long qpFatalEvents;
  private volatile long cqErrors;
  private volatile long forcedFlushes;
  private volatile long strayCompletions;
  private volatile long callbackErrors;
  private volatile long maxPollGapNanos;
  private final SingleWriterRecorder pollGapRecorder =
      new SingleWriterRecorder(1, MAX_RECORDED_NANOS, 3);
  private final SingleWriterRecorder handshakeRecorder =
      new SingleWriterRecorder(1, MAX_RECORDED_NANOS, 3);
  private final Histogram pollGaps = new Histogram(1, MAX_RECORDED_NANOS, 3);
  private final Histogram handshakeLatencies = new Histogram(1, MAX_RECORDED_NANOS, 3);

  /** Creates zeroed metrics. */
  public OwnerMetrics() {}

  void sliceAccepted() {
    slicesAccepted++;
  }

  void handshakeReasked() {
    handshakesReasked++;
  }

  void endpointIdleRetired() {
    endpointsIdleRetired++;
  }

  void handshakeAttempted() {
    handshakeAttempts++;
  }

  void handshakeRetried() {
    handshakeRetries++;
  }

  void handshakeBackedOff(long waitNanos) {
    handshakeBackoffNanos += waitNanos;
  }

  void slicesPosted(int n) {
    slicesPosted += n;
  }

  void sliceEnded(boolean ok) {
    if (ok) {
      slicesCompleted++;
    } else {
      slicesFailed++;
    }
  }

  void handshakeStarted(boolean active) {
    if (active) {
      handshakesActive++;
    } else {
      handshakesPassive++;
    }
  }

  void handshakeFailed() {
    handshakesFailed++;
  }

  void handshakeSucceeded(long latencyNanos) {
    handshakeRecorder.recordValue(clamp(latencyNanos));
  }

  void staleReplyDropped() {
    staleRepliesDropped++;
  }

  void staleRequestRejected() {
    staleRequestsRejected++;
  }

  void writeFenceAsked() {
    writeFencesAsked++;
  }

  void writeFenceConfirmed() {
    writeFencesConfirmed++;
  }

  void peerDisconnected() {
    peerDisconnects++;
  }

  void simultaneousOpen(boolean kept) {
    if (kept) {
      simultaneousOpensKept++;
    } else {
      simultaneousOpensYielded++;
    }
  }

  void endpointsAlive(int n) {
    endpointsAlive = n;
  }

  void endpointRetired() {
    endpointsRetired++;
  }

  void endpointEvicted() {
    endpointsEvicted++;
  }

  void endpointStoreOverflow() {
    endpointStoreOverflows++;
  }

  void qpFatal() {
    qpFatalEvents++;
  }

  void cqError() {
    cqErrors++;
  }

  void forcedFlushes(int n) {
    forcedFlushes += n;
  }

  void strayCompletion() {
    strayCompletions++;
  }

  void callbackError() {
    callbackErrors++;
  }

  void pollGap(long nanos) {
    if (nanos > maxPollGapNanos) {
      maxPollGapNanos = nanos;
    }
    pollGapRecorder.recordValue(clamp(nanos));
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
    return slicesAccepted;
  }

  /**
   * @return active handshakes sent again after a SIMULTANEOUS_OPEN answer whose peer request never
   *     came
   */
  public long handshakesReasked() {
    return handshakesReasked;
  }

  /**
   * @return endpoints retired because no slice used them for {@code idleEndpointMs}
   */
  public long endpointsIdleRetired() {
    return endpointsIdleRetired;
  }

  /**
   * @return connect requests sent by active handshakes: first attempts, retries after a backoff
   *     wait and re-asks after SIMULTANEOUS_OPEN
   */
  public long handshakeAttempts() {
    return handshakeAttempts;
  }

  /**
   * @return connect requests sent again after a refused attempt and a backoff wait
   */
  public long handshakeRetries() {
    return handshakeRetries;
  }

  /**
   * @return total backoff wait scheduled before those retries, in nanoseconds
   */
  public long handshakeBackoffNanos() {
    return handshakeBackoffNanos;
  }

  /**
   * @return slices handed to the provider
   */
  public long slicesPosted() {
    return slicesPosted;
  }

  /**
   * @return slices completed with OK
   */
  public long slicesCompleted() {
    return slicesCompleted;
  }

  /**
   * @return slices completed with any other status
   */
  public long slicesFailed() {
    return slicesFailed;
  }

  /**
   * @return active handshakes started
   */
  public long handshakesActive() {
    return handshakesActive;
  }

  /**
   * @return passive handshakes accepted
   */
  public long handshakesPassive() {
    return handshakesPassive;
  }

  /**
   * @return active handshakes that failed (reject, error or deadline)
   */
  public long handshakesFailed() {
    return handshakesFailed;
  }

  /**
   * @return handshake replies dropped because their endpoint was replaced or retired meanwhile
   */
  public long staleRepliesDropped() {
    return staleRepliesDropped;
  }

  /**
   * @return passive requests rejected because an endpoint with a newer peer generation exists
   */
  public long staleRequestsRejected() {
    return staleRequestsRejected;
  }

  /**
   * @return endpoints whose failed WRITEs were fenced: the peer was asked to retire its end
   */
  public long writeFencesAsked() {
    return writeFencesAsked;
  }

  /**
   * @return fences the peer confirmed (DISCONNECTED): their WRITEs went on to be retried
   */
  public long writeFencesConfirmed() {
    return writeFencesConfirmed;
  }

  /**
   * @return endpoints retired because their peer disconnected them (its fence)
   */
  public long peerDisconnects() {
    return peerDisconnects;
  }

  /**
   * @return simultaneous opens where this side kept the active role
   */
  public long simultaneousOpensKept() {
    return simultaneousOpensKept;
  }

  /**
   * @return simultaneous opens where this side gave up its attempt and accepted
   */
  public long simultaneousOpensYielded() {
    return simultaneousOpensYielded;
  }

  /**
   * @return endpoints currently in the store
   */
  public long endpointsAlive() {
    return endpointsAlive;
  }

  /**
   * @return endpoints retired
   */
  public long endpointsRetired() {
    return endpointsRetired;
  }

  /**
   * @return idle endpoints evicted to make room
   */
  public long endpointsEvicted() {
    return endpointsEvicted;
  }

  /**
   * @return endpoints admitted over the store's capacity because every stored one was busy
   */
  public long endpointStoreOverflows() {
    return endpointStoreOverflows;
  }

  /**
   * @return QP fatal events handled
   */
  public long qpFatalEvents() {
    return qpFatalEvents;
  }

  /**
   * @return CQ errors (overflow): must stay 0, credits make it impossible
   */
  public long cqErrors() {
    return cqErrors;
  }

  /**
   * @return work requests accounted by the owner because no flushed completion came by the deadline
   */
  public long forcedFlushes() {
    return forcedFlushes;
  }

  /**
   * @return completions that matched no work request in flight (dropped)
   */
  public long strayCompletions() {
    return strayCompletions;
  }

  /**
   * @return slice callbacks that threw
   */
  public long callbackErrors() {
    return callbackErrors;
  }

  /**
   * @return the longest time between two CQ polls while work was in flight, in nanoseconds
   */
  public long maxPollGapNanos() {
    return maxPollGapNanos;
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
