package io.vte.engine.impl.owner;

import io.vte.api.EngineOptionFields;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.verbs.QueueLimits;
import java.time.Duration;

/**
 * How the owners of one local device are sized and timed. An engine's comes from its {@link
 * EngineOptions} through {@link #from}; the fields that are engine options take their defaults and
 * ranges from {@link EngineOptionFields}, the others (owner internals, not configurable) are the
 * constants below.
 *
 * @param workersPerContext owners (each with its own CQ and event loop) per local device, at least
 *     1
 * @param cqSize capacity of each owner's CQ: the owner's credit of signaled work requests in flight
 * @param maxOutstandingPerQp send-queue depth of each QP: work requests in flight per QP
 * @param qpsPerEndpoint QPs per endpoint; slices are spread over them
 * @param handshakeDeadline how long an active handshake may take before its endpoint fails
 * @param maxHandshakesInFlight connect requests in flight per owner; further active handshakes wait
 *     for a free slot
 * @param endpointStoreCapacity endpoints one owner keeps; idle ones are evicted beyond it
 * @param port the device port used, from 1
 * @param qpTimeout QP local ACK timeout, ibverbs encoding (0..31)
 * @param qpRetryCount QP transport retries (0..7)
 * @param qpRnrRetry QP receiver-not-ready retries (0..7)
 * @param pollBatchSize completions polled per CQ poll (also the largest post batch)
 * @param commandDrainLimit commands (slices, replies, events) an owner takes per duty cycle
 * @param busyPoll how long an owner keeps polling after it last found work ({@link
 *     io.vte.engine.impl.owner.runtime.OwnerIdleStrategy})
 * @param idleBackoffMin shortest sleep of an idle owner (at least 1 ms: Vert.x timers)
 * @param idleBackoffMax longest sleep of an idle owner; bounds how late a deadline is noticed
 * @param flushDeadline how long a retired endpoint waits for the flushed completions of its work
 *     requests before the owner accounts for them itself
 * @param idleEndpoint how long an endpoint may go unused before the owner retires it, zero for
 *     never
 * @param peerProbeAfter how long work in flight on an endpoint may go without a completion before
 *     the owner probes the peer's handshake service (a refusal means the peer is gone); also the
 *     least time between two probes of one peer
 */
public record OwnerConfig(
    int workersPerContext,
    int cqSize,
    int maxOutstandingPerQp,
    int qpsPerEndpoint,
    Duration handshakeDeadline,
    int maxHandshakesInFlight,
    int endpointStoreCapacity,
    int port,
    int qpTimeout,
    int qpRetryCount,
    int qpRnrRetry,
    int pollBatchSize,
    int commandDrainLimit,
    Duration busyPoll,
    Duration idleBackoffMin,
    Duration idleBackoffMax,
    Duration flushDeadline,
    Duration idleEndpoint,
    Duration peerProbeAfter) {

  private static final String ENGINE_OPTION = "engine option";

  /** QPs per endpoint of an engine's owners. */
  public static final int QPS_PER_ENDPOINT = 1;

  /** The device port an engine's owners use. */
  public static final int PORT = 1;

  /** Receiver-not-ready retries of an engine's QPs. */
  public static final int QP_RNR_RETRY = 7;

  /** Completions polled per CQ poll. */
  public static final int POLL_BATCH_SIZE = 64;

  /** Commands an owner takes per duty cycle. */
  public static final int COMMAND_DRAIN_LIMIT = 256;

  /** Shortest sleep of an idle owner. */
  public static final Duration IDLE_BACKOFF_MIN = Duration.ofMillis(1);

  /** Longest sleep of an idle owner. */
  public static final Duration IDLE_BACKOFF_MAX = Duration.ofMillis(20);

  /** How long a retired endpoint waits for its flushed completions. */
  public static final Duration FLUSH_DEADLINE = Duration.ofSeconds(2);

  /**
   * How long work in flight may go without a completion before the peer is probed: a few times a
   * loaded peer's completion gap, a quarter of the one second a dead peer must be found in.
   */
  public static final Duration PEER_PROBE_AFTER = Duration.ofMillis(250);

  /**
   * Validates every field; a bad one is an {@link ErrorCode#INVALID_CONFIGURATION} naming it. The
   * fields that are engine options are checked against {@link EngineOptionFields}' ranges ({@code
   * endpointStoreCapacity} as {@code endpointCacheSize}); {@code maxOutstandingPerQp} only needs to
   * be positive here: that it stays within {@code cqSize} is the engine's rule, an owner's CQ
   * credits hold either way.
   */
  public OwnerConfig {
    EngineOptionFields.WORKERS_PER_CONTEXT.require(workersPerContext, ENGINE_OPTION);
    EngineOptionFields.CQ_SIZE.require(cqSize, ENGINE_OPTION);
    atLeast(EngineOptionFields.MAX_OUTSTANDING_PER_QP.name(), maxOutstandingPerQp, 1);
    EngineOptionFields.HANDSHAKE_DEADLINE.require(handshakeDeadline, ENGINE_OPTION);
    EngineOptionFields.MAX_HANDSHAKES_IN_FLIGHT.require(maxHandshakesInFlight, ENGINE_OPTION);
    EngineOptionFields.ENDPOINT_CACHE_SIZE.require(endpointStoreCapacity, ENGINE_OPTION);
    EngineOptionFields.QP_RETRY_COUNT.require(qpRetryCount, ENGINE_OPTION);
    atLeast("qpsPerEndpoint", qpsPerEndpoint, 1);
    atMost("qpsPerEndpoint", qpsPerEndpoint, Owner.MAX_QPS_PER_ENDPOINT);
    atLeast("port", port, 1);
    range("qpTimeout", qpTimeout, 0, 31);
    range("qpRnrRetry", qpRnrRetry, 0, 7);
    atLeast("pollBatchSize", pollBatchSize, 1);
    atLeast("commandDrainLimit", commandDrainLimit, 1);
    EngineOptionFields.BUSY_POLL.require(busyPoll, ENGINE_OPTION);
    positive("idleBackoffMin", idleBackoffMin);
    positive("idleBackoffMax", idleBackoffMax);
    if (idleBackoffMin.toMillis() < 1) {
      throw invalid(
          "idleBackoffMin must be >= 1 ms (Vert.x timer resolution), got " + idleBackoffMin);
    }
    if (idleBackoffMax.compareTo(idleBackoffMin) < 0) {
      throw invalid(
          "idleBackoffMax ("
              + idleBackoffMax
              + ") must be >= idleBackoffMin ("
              + idleBackoffMin
              + ")");
    }
    positive("flushDeadline", flushDeadline);
    EngineOptionFields.IDLE_ENDPOINT.require(idleEndpoint, ENGINE_OPTION);
    positive("peerProbeAfter", peerProbeAfter);
    if (peerProbeAfter.toMillis() < 4) {
      throw invalid(
          "peerProbeAfter must be >= 4 ms (Vert.x timer resolution), got " + peerProbeAfter);
    }
  }

  /**
   * The one place an engine's owner configuration is made.
   *
   * @param options engine options
   * @return the owner configuration they describe, with this class's constants for the owner
   *     internals
   * @throws VteException INVALID_CONFIGURATION naming the first bad engine option
   */
  public static OwnerConfig from(EngineOptions options) {
    options.validate();
    return new OwnerConfig(
        options.getWorkersPerContext(),
        options.getCqSize(),
        options.getMaxOutstandingPerQp(),
        QPS_PER_ENDPOINT,
        options.getHandshakeDeadline(),
        options.getMaxHandshakesInFlight(),
        options.getEndpointCacheSize(),
        PORT,
        qpTimeoutExponent(options.getQpTimeout()),
        options.getQpRetryCount(),
        QP_RNR_RETRY,
        POLL_BATCH_SIZE,
        COMMAND_DRAIN_LIMIT,
        options.getBusyPoll(),
        IDLE_BACKOFF_MIN,
        IDLE_BACKOFF_MAX,
        FLUSH_DEADLINE,
        options.getIdleEndpoint(),
        PEER_PROBE_AFTER);
  }

  /**
   * @param limits the device's largest queues, as its provider reports them
   * @param device its name
   * @param checksIntegrity the device checks integrity: its provider may keep part of the device's
   *     queues for that, which the message then says
   * @return INVALID_CONFIGURATION naming the first engine option above a limit and the limit, or
   *     null when the owners' queues fit the device
   */
  public VteException aboveLimits(QueueLimits limits, String device, boolean checksIntegrity) {
    String why =
        checksIntegrity
            ? ", as its provider reports it: the provider keeps room for its integrity checks"
                + " (ibverbs: half the device's queues, option 'readBackVerify')"
            : "";
    if (cqSize > limits.maxCqe()) {
      return aboveLimit(
          EngineOptionFields.CQ_SIZE.name(), cqSize, "max_cqe", limits.maxCqe(), device, why);
    }
    if (maxOutstandingPerQp > limits.maxQpWr()) {
      return aboveLimit(
          EngineOptionFields.MAX_OUTSTANDING_PER_QP.name(),
          maxOutstandingPerQp,
          "max_qp_wr",
          limits.maxQpWr(),
          device,
          why);
    }
    return null;
  }

  private static VteException aboveLimit(
      String option, int value, String limit, int max, String device, String why) {
    return new VteException(
        ErrorCode.INVALID_CONFIGURATION,
        "engine option '"
            + option
            + "' "
            + value
            + " is above "
            + limit
            + " "
            + max
            + " of device '"
            + device
            + "'"
            + why);
  }

  /**
   * ibverbs encodes the ACK timeout as 4.096 us x 2^t.
   *
   * @param timeout the QP timeout of one attempt
   * @return its exponent t, 1..31
   */
  public static int qpTimeoutExponent(Duration timeout) {
    long units = Math.max(1, timeout.toNanos() / 4096);
    int t = 64 - Long.numberOfLeadingZeros(units - 1);
    return Math.min(31, Math.max(1, t));
  }

  /**
   * @param n workers per context
   * @return a copy with it
   */
  public OwnerConfig withWorkersPerContext(int n) {
    return copy(c -> c.workersPerContext = n);
  }

  /**
   * @param size CQ capacity
   * @param perQp send-queue depth
   * @return a copy with them
   */
  public OwnerConfig withQueueSizes(int size, int perQp) {
    return copy(
        c -> {
          c.cqSize = size;
          c.maxOutstandingPerQp = perQp;
        });
  }

  /**
   * @param n QPs per endpoint
   * @return a copy with it
   */
  public OwnerConfig withQpsPerEndpoint(int n) {
    return copy(c -> c.qpsPerEndpoint = n);
  }

  /**
   * @param deadline handshake deadline
   * @return a copy with it
   */
  public OwnerConfig withHandshakeDeadline(Duration deadline) {
    return copy(c -> c.handshakeDeadline = deadline);
  }

  /**
   * @param n connect requests in flight per owner
   * @return a copy with it
   */
  public OwnerConfig withMaxHandshakesInFlight(int n) {
    return copy(c -> c.maxHandshakesInFlight = n);
  }

  /**
   * @param capacity endpoints per owner
   * @return a copy with it
   */
  public OwnerConfig withEndpointStoreCapacity(int capacity) {
    return copy(c -> c.endpointStoreCapacity = capacity);
  }

  /**
   * @param deadline flush deadline of retired endpoints
   * @return a copy with it
   */
  public OwnerConfig withFlushDeadline(Duration deadline) {
    return copy(c -> c.flushDeadline = deadline);
  }

  /**
   * @param after how long work in flight may go without a completion before the peer is probed
   * @return a copy with it
   */
  public OwnerConfig withPeerProbeAfter(Duration after) {
    return copy(c -> c.peerProbeAfter = after);
  }

  /** A copy of this configuration with some fields changed ({@code change} sets them). */
  private OwnerConfig copy(java.util.function.Consumer<Fields> change) {
    Fields c = new Fields(this);
    change.accept(c);
    return c.build();
  }

  /** The fields of a configuration, to change before {@link #build()} validates a new one. */
  private static final class Fields {
    int workersPerContext;
    int cqSize;
    int maxOutstandingPerQp;
    int qpsPerEndpoint;
    Duration handshakeDeadline;
    int maxHandshakesInFlight;
    int endpointStoreCapacity;
    int port;
    int qpTimeout;
    int qpRetryCount;
    int qpRnrRetry;
    int pollBatchSize;
    int commandDrainLimit;
    Duration busyPoll;
    Duration idleBackoffMin;
    Duration idleBackoffMax;
    Duration flushDeadline;
    Duration idleEndpoint;
    Duration peerProbeAfter;

    Fields(OwnerConfig o) {
      workersPerContext = o.workersPerContext;
      cqSize = o.cqSize;
      maxOutstandingPerQp = o.maxOutstandingPerQp;
      qpsPerEndpoint = o.qpsPerEndpoint;
      handshakeDeadline = o.handshakeDeadline;
      maxHandshakesInFlight = o.maxHandshakesInFlight;
      endpointStoreCapacity = o.endpointStoreCapacity;
      port = o.port;
      qpTimeout = o.qpTimeout;
      qpRetryCount = o.qpRetryCount;
      qpRnrRetry = o.qpRnrRetry;
      pollBatchSize = o.pollBatchSize;
      commandDrainLimit = o.commandDrainLimit;
      busyPoll = o.busyPoll;
      idleBackoffMin = o.idleBackoffMin;
      idleBackoffMax = o.idleBackoffMax;
      flushDeadline = o.flushDeadline;
      idleEndpoint = o.idleEndpoint;
      peerProbeAfter = o.peerProbeAfter;
    }

    OwnerConfig build() {
      return new OwnerConfig(
          workersPerContext,
          cqSize,
          maxOutstandingPerQp,
          qpsPerEndpoint,
          handshakeDeadline,
          maxHandshakesInFlight,
          endpointStoreCapacity,
          port,
          qpTimeout,
          qpRetryCount,
          qpRnrRetry,
          pollBatchSize,
          commandDrainLimit,
          busyPoll,
          idleBackoffMin,
          idleBackoffMax,
          flushDeadline,
          idleEndpoint,
          peerProbeAfter);
    }
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
