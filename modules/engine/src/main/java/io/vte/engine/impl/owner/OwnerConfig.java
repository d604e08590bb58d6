package io.vte.engine.impl.owner;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.time.Duration;

/**
 * How the owners of one local device are sized and timed.
 *
 * @param workersPerContext owners (each with its own CQ and event loop) per local device, at least 1
 * @param cqSize capacity of each owner's CQ: the owner's credit of signaled work requests in flight
 * @param maxOutstandingPerQp send-queue depth of each QP: work requests in flight per QP
 * @param qpsPerEndpoint QPs per endpoint; slices are spread over them
 * @param handshakeDeadline how long an active handshake may take before its endpoint fails
 * @param endpointStoreCapacity endpoints one owner keeps; idle ones are evicted beyond it
 * @param port the device port used, from 1
 * @param qpTimeout QP local ACK timeout, ibverbs encoding (0..31)
 * @param qpRetryCount QP transport retries (0..7)
 * @param qpRnrRetry QP receiver-not-ready retries (0..7)
 * @param pollBatchSize completions polled per CQ poll (also the largest post batch)
 * @param commandDrainLimit commands (slices, replies, events) an owner takes per duty cycle
 * @param idleBackoffMin shortest sleep of an idle owner (at least 1 ms: Vert.x timers)
 * @param idleBackoffMax longest sleep of an idle owner; bounds how late a deadline is noticed
 * @param flushDeadline how long a retired endpoint waits for the flushed completions of its work
 *     requests before the owner accounts for them itself
 */
public record OwnerConfig(int workersPerContext, int cqSize, int maxOutstandingPerQp, int qpsPerEndpoint,
    Duration handshakeDeadline, int endpointStoreCapacity, int port, int qpTimeout, int qpRetryCount,
    int qpRnrRetry, int pollBatchSize, int commandDrainLimit, Duration idleBackoffMin,
    Duration idleBackoffMax, Duration flushDeadline) {

  /** Validates every field; a bad one is an {@link ErrorCode#INVALID_CONFIGURATION} naming it. */
  public OwnerConfig {
    atLeast("workersPerContext", workersPerContext, 1);
    atLeast("cqSize", cqSize, 1);
    atLeast("maxOutstandingPerQp", maxOutstandingPerQp, 1);
    atLeast("qpsPerEndpoint", qpsPerEndpoint, 1);
    atMost("qpsPerEndpoint", qpsPerEndpoint, Owner.MAX_QPS_PER_ENDPOINT);
    positive("handshakeDeadline", handshakeDeadline);
    atLeast("endpointStoreCapacity", endpointStoreCapacity, 1);
    atLeast("port", port, 1);
    range("qpTimeout", qpTimeout, 0, 31);
    range("qpRetryCount", qpRetryCount, 0, 7);
    range("qpRnrRetry", qpRnrRetry, 0, 7);
    atLeast("pollBatchSize", pollBatchSize, 1);
    atLeast("commandDrainLimit", commandDrainLimit, 1);
    positive("idleBackoffMin", idleBackoffMin);
    positive("idleBackoffMax", idleBackoffMax);
    if (idleBackoffMin.toMillis() < 1) {
      throw invalid("idleBackoffMin must be >= 1 ms (Vert.x timer resolution), got " + idleBackoffMin);
    }
    if (idleBackoffMax.compareTo(idleBackoffMin) < 0) {
      throw invalid("idleBackoffMax (" + idleBackoffMax + ") must be >= idleBackoffMin (" + idleBackoffMin + ")");
    }
    positive("flushDeadline", flushDeadline);
  }

  /** @return the defaults: 1 worker, CQ 4096, 256 per QP, 1 QP, 5 s handshake, 1024 endpoints */
  public static OwnerConfig defaults() {
    return new OwnerConfig(1, 4096, 256, 1, Duration.ofSeconds(5), 1024, 1, 14, 7, 7, 64, 256,
        Duration.ofMillis(1), Duration.ofMillis(20), Duration.ofSeconds(2));
  }

  /** @param n workers per context @return a copy with it */
  public OwnerConfig withWorkersPerContext(int n) {
    return new OwnerConfig(n, cqSize, maxOutstandingPerQp, qpsPerEndpoint, handshakeDeadline,
        endpointStoreCapacity, port, qpTimeout, qpRetryCount, qpRnrRetry, pollBatchSize, commandDrainLimit,
        idleBackoffMin, idleBackoffMax, flushDeadline);
  }

  /** @param size CQ capacity @param perQp send-queue depth @return a copy with them */
  public OwnerConfig withQueueSizes(int size, int perQp) {
    return new OwnerConfig(workersPerContext, size, perQp, qpsPerEndpoint, handshakeDeadline,
        endpointStoreCapacity, port, qpTimeout, qpRetryCount, qpRnrRetry, pollBatchSize, commandDrainLimit,
        idleBackoffMin, idleBackoffMax, flushDeadline);
  }

  /** @param n QPs per endpoint @return a copy with it */
  public OwnerConfig withQpsPerEndpoint(int n) {
    return new OwnerConfig(workersPerContext, cqSize, maxOutstandingPerQp, n, handshakeDeadline,
        endpointStoreCapacity, port, qpTimeout, qpRetryCount, qpRnrRetry, pollBatchSize, commandDrainLimit,
        idleBackoffMin, idleBackoffMax, flushDeadline);
  }

  /** @param deadline handshake deadline @return a copy with it */
  public OwnerConfig withHandshakeDeadline(Duration deadline) {
    return new OwnerConfig(workersPerContext, cqSize, maxOutstandingPerQp, qpsPerEndpoint, deadline,
        endpointStoreCapacity, port, qpTimeout, qpRetryCount, qpRnrRetry, pollBatchSize, commandDrainLimit,
        idleBackoffMin, idleBackoffMax, flushDeadline);
  }

  /** @param capacity endpoints per owner @return a copy with it */
  public OwnerConfig withEndpointStoreCapacity(int capacity) {
    return new OwnerConfig(workersPerContext, cqSize, maxOutstandingPerQp, qpsPerEndpoint, handshakeDeadline,
        capacity, port, qpTimeout, qpRetryCount, qpRnrRetry, pollBatchSize, commandDrainLimit,
        idleBackoffMin, idleBackoffMax, flushDeadline);
  }

  /** @param deadline flush deadline of retired endpoints @return a copy with it */
  public OwnerConfig withFlushDeadline(Duration deadline) {
    return new OwnerConfig(workersPerContext, cqSize, maxOutstandingPerQp, qpsPerEndpoint, handshakeDeadline,
        endpointStoreCapacity, port, qpTimeout, qpRetryCount, qpRnrRetry, pollBatchSize, commandDrainLimit,
        idleBackoffMin, idleBackoffMax, deadline);
  }

  private static void atLeast(String name, int value, int min) {
    if (value < min) {
      throw invalid(name + " must be >= " + min + ", got " + value);
    }
  }

  private static void atMost(String name, int value, int max) {
    if (value > max) {
      throw invalid(name + " must be <= " + max + ", got " + value);
    }
  }

  private static void range(String name, int value, int min, int max) {
    atLeast(name, value, min);
    atMost(name, value, max);
  }

  private static void positive(String name, Duration value) {
    if (value == null || value.isNegative() || value.isZero()) {
      throw invalid(name + " must be a positive duration, got " + value);
    }
  }

  private static VteException invalid(String message) {
    return new VteException(ErrorCode.INVALID_CONFIGURATION, message);
  }
}
