package io.vte.metadata;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.OptionFields;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeClientPool;
import java.time.Duration;
import java.util.Objects;

/**
 * Options of a {@link MetadataStore}: the cluster prefix, lease TTL, call and start deadlines
 * shared by the backends, etcd credentials and TLS files, and what the p2p store uses to reach
 * peers. Fluent setters validate their argument and throw {@code INVALID_CONFIGURATION} naming the
 * field and the bad value.
 *
 * <p>The configuration fields, their JSON, defaults and ranges are those of the API's {@link
 * io.vte.api.MetadataOptions} (the {@code metadata} object of the engine options), defined there
 * once; these options add what is code, not configuration (the p2p segment fetcher), and a call
 * deadline of their own for a store used without an engine.
 */
public final class MetadataOptions {

  private static final OptionFields<io.vte.api.MetadataOptions> FIELDS =
      io.vte.api.MetadataOptions.FIELDS;
  private static final String LABEL = "metadata option";

  /** Default cluster prefix: every key of a cluster lives under it. */
  public static final String DEFAULT_CLUSTER_PREFIX =
      io.vte.api.MetadataOptions.CLUSTER_PREFIX.defaultValue();

  /** Default lease TTL: how long a dead node's entries outlive it. */
  public static final Duration DEFAULT_LEASE_TTL =
      io.vte.api.MetadataOptions.LEASE_TTL.defaultValue();

  /**
   * Default deadline of one call to the backend of a store used without an engine (an engine's is
   * its handshake deadline).
   */
  public static final Duration DEFAULT_CALL_DEADLINE = Duration.ofSeconds(3);

  /** Default period of the etcd health probe, which also detects a lost lease. */
  public static final Duration DEFAULT_HEALTH_CHECK_INTERVAL =
      io.vte.api.MetadataOptions.HEALTH_CHECK_INTERVAL.defaultValue();

  /** Default start deadline: how long a starting node waits for a slow or absent backend. */
  public static final Duration DEFAULT_START_DEADLINE =
      io.vte.api.MetadataOptions.START_DEADLINE.defaultValue();

  /** The configuration, every value checked against its range; the call deadline always set. */
  private final io.vte.api.MetadataOptions config;

  private SegmentFetcher segmentFetcher;

  /** Creates options with the defaults. */
  public MetadataOptions() {
    config = new io.vte.api.MetadataOptions().setCallDeadline(DEFAULT_CALL_DEADLINE);
  }

  /**
   * Copies options.
   *
   * @param other the options to copy
   */
  public MetadataOptions(MetadataOptions other) {
    config = new io.vte.api.MetadataOptions();
    FIELDS.copy(other.config, config);
    segmentFetcher = other.segmentFetcher;
  }

  /**
   * Reads options from JSON, strictly (unknown keys and values of the wrong type are refused);
   * absent fields keep their defaults. Durations are in milliseconds ({@code leaseTtlMs}, {@code
   * callDeadlineMs}, {@code healthCheckIntervalMs}, {@code startDeadlineMs}).
   *
   * @param json the JSON object
   * @return the options
   * @throws VteException INVALID_CONFIGURATION naming a field of the wrong type or value
   */
  public static MetadataOptions fromJson(JsonObject json) {
    return from(io.vte.api.MetadataOptions.fromJson(json));
  }

  /**
   * @param config the metadata configuration (the engine options' {@code metadata} object)
   * @return options with its values; an unset call deadline keeps {@link #DEFAULT_CALL_DEADLINE}
   * @throws VteException INVALID_CONFIGURATION naming a field out of range
   */
  public static MetadataOptions from(io.vte.api.MetadataOptions config) {
    config.validate();
    MetadataOptions o = new MetadataOptions();
    Duration callDeadline = o.getCallDeadline();
    FIELDS.copy(config, o.config);
    o.setClusterPrefix(config.getClusterPrefix());
    return config.getCallDeadline() == null ? o.setCallDeadline(callDeadline) : o;
  }

  /**
   * @return the options as JSON (the p2p segment fetcher is code, not configuration, and is left
   *     out)
   */
  public JsonObject toJson() {
    return config.toJson();
  }

  /**
   * @return the cluster prefix, starting with {@code /} and without a trailing {@code /}
   */
  public String getClusterPrefix() {
    return config.getClusterPrefix();
  }

  /**
   * @param clusterPrefix the key prefix of the cluster, e.g. {@code /vte/prod}; a trailing {@code
   *     /} is dropped
   * @return this
   */
  public MetadataOptions setClusterPrefix(String clusterPrefix) {
    io.vte.api.MetadataOptions.CLUSTER_PREFIX.require(clusterPrefix, LABEL);
    config.setClusterPrefix(
        clusterPrefix.endsWith("/")
            ? clusterPrefix.substring(0, clusterPrefix.length() - 1)
            : clusterPrefix);
    return this;
  }

  /**
   * @return the lease TTL
   */
  public Duration getLeaseTtl() {
    return config.getLeaseTtl();
  }

  /**
   * @param leaseTtl how long a node's entries survive it: whole seconds, 2 s to 1 hour (etcd's
   *     minimum is ~2 s)
   * @return this
   */
  public MetadataOptions setLeaseTtl(Duration leaseTtl) {
    config.setLeaseTtl(io.vte.api.MetadataOptions.LEASE_TTL.require(leaseTtl, LABEL));
    return this;
  }

  /**
   * @return the deadline of one backend call
   */
  public Duration getCallDeadline() {
    return config.getCallDeadline();
  }

  /**
   * @param callDeadline the deadline of one backend call, 1 ms to 10 min
   * @return this
   */
  public MetadataOptions setCallDeadline(Duration callDeadline) {
    if (callDeadline == null) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, LABEL + " 'callDeadlineMs' must be set here");
    }
    config.setCallDeadline(io.vte.api.MetadataOptions.CALL_DEADLINE.require(callDeadline, LABEL));
    return this;
  }

  /**
   * @return the period of the etcd health probe
   */
  public Duration getHealthCheckInterval() {
    return config.getHealthCheckInterval();
  }

  /**
   * @param healthCheckInterval how often the etcd store checks that etcd and its lease are alive, 1
   *     ms to 10 min
   * @return this
   */
  public MetadataOptions setHealthCheckInterval(Duration healthCheckInterval) {
    config.setHealthCheckInterval(
        io.vte.api.MetadataOptions.HEALTH_CHECK_INTERVAL.require(healthCheckInterval, LABEL));
    return this;
  }

  /**
   * @return how long start-up calls to the backend are repeated while it is slow or unreachable
   */
  public Duration getStartDeadline() {
    return config.getStartDeadline();
  }

  /**
   * @param startDeadline how long a starting node repeats its first calls to the backend (each
   *     within the call deadline) while they time out or find it unreachable, 1 ms to 10 min; a
   *     refusal of the credentials fails at once
   * @return this
   */
  public MetadataOptions setStartDeadline(Duration startDeadline) {
    config.setStartDeadline(
        io.vte.api.MetadataOptions.START_DEADLINE.require(startDeadline, LABEL));
    return this;
  }

  /**
   * @return the etcd user, or null for no authentication
   */
  public String getEtcdUser() {
    return config.getEtcdUser();
  }

  /**
   * @param etcdUser the etcd user (with {@link #setEtcdPassword}), or null for no authentication
   * @return this
   */
  public MetadataOptions setEtcdUser(String etcdUser) {
    config.setEtcdUser(etcdUser);
    return this;
  }

  /**
   * @return the etcd password, or null
   */
  public String getEtcdPassword() {
    return config.getEtcdPassword();
  }

  /**
   * @param etcdPassword the etcd password
   * @return this
   */
  public MetadataOptions setEtcdPassword(String etcdPassword) {
    config.setEtcdPassword(etcdPassword);
    return this;
  }

  /**
   * @return the PEM file of CAs trusted for etcd's certificate ({@code etcds://}), or null for the
   *     JDK's
   */
  public String getTlsTrustPemPath() {
    return config.getTlsTrustPemPath();
  }

  /**
   * @param path PEM file of the CAs that sign etcd's certificate
   * @return this
   */
  public MetadataOptions setTlsTrustPemPath(String path) {
    config.setTlsTrustPemPath(path);
    return this;
  }

  /**
   * @return the PEM client certificate chain for etcd mutual TLS, or null
   */
  public String getTlsCertPemPath() {
    return config.getTlsCertPemPath();
  }

  /**
   * @param path PEM client certificate chain (with {@link #setTlsKeyPemPath})
   * @return this
   */
  public MetadataOptions setTlsCertPemPath(String path) {
    config.setTlsCertPemPath(path);
    return this;
  }

  /**
   * @return the PEM (PKCS#8) client private key for etcd mutual TLS, or null
   */
  public String getTlsKeyPemPath() {
    return config.getTlsKeyPemPath();
  }

  /**
   * @param path PEM (PKCS#8) private key of the client certificate
   * @return this
   */
  public MetadataOptions setTlsKeyPemPath(String path) {
    config.setTlsKeyPemPath(path);
    return this;
  }

  /**
   * @return how the p2p store asks a peer for its segment, or null when not set
   */
  public SegmentFetcher getSegmentFetcher() {
    return segmentFetcher;
  }

  /**
   * Sets how the p2p store asks a peer for its descriptor, normally {@code
   * handshakeClientPool::getSegment}.
   *
   * @param segmentFetcher the fetcher
   * @return this
   */
  public MetadataOptions setSegmentFetcher(SegmentFetcher segmentFetcher) {
    this.segmentFetcher = segmentFetcher;
    return this;
  }

  /**
   * Makes the p2p store ask peers through {@code pool} (the engine's handshake client pool).
   *
   * @param pool the pool
   * @return this
   */
  public MetadataOptions setHandshakeClientPool(HandshakeClientPool pool) {
    Objects.requireNonNull(pool, "pool");
    return setSegmentFetcher(pool::getSegment);
  }

  @Override
  public String toString() {
    return "MetadataOptions{prefix="
        + getClusterPrefix()
        + ", leaseTtl="
        + getLeaseTtl()
        + ", callDeadline="
        + getCallDeadline()
        + ", startDeadline="
        + getStartDeadline()
        + ", user="
        + getEtcdUser()
        + ", tls="
        + (getTlsTrustPemPath() != null || getTlsCertPemPath() != null)
        + "}";
  }
}
