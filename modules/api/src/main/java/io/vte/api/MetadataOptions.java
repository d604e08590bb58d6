package io.vte.api;

import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * The metadata store options of an engine (the {@code metadata} object of {@link EngineOptions}):
 * cluster prefix, lease TTL, call, health-check and start deadlines, etcd credentials and TLS
 * files, for an engine's store and for a store made alone ({@code MetadataStores.create}). Their
 * defaults and ranges are defined here, once, in {@link #FIELDS}. Durations are milliseconds in
 * JSON.
 */
public final class MetadataOptions {

  /** Longest duration of the call, health-check and start deadlines. */
  public static final Duration MAX_DEADLINE = Duration.ofMinutes(10);

  /** The field {@code clusterPrefix}. */
  public static final OptionFields.Field<MetadataOptions, String> CLUSTER_PREFIX =
      OptionFields.field(
              "clusterPrefix",
              OptionKind.STRING,
              "/vte/default",
              MetadataOptions::getClusterPrefix,
              MetadataOptions::setClusterPrefix)
          .check(MetadataOptions::validPrefix, "an absolute key path such as /vte/default");

  /** The field {@code leaseTtlMs}. */
  public static final OptionFields.Field<MetadataOptions, Duration> LEASE_TTL =
      OptionFields.field(
              "leaseTtlMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(10),
              MetadataOptions::getLeaseTtl,
              MetadataOptions::setLeaseTtl)
          .check(
              d ->
                  d != null
                      && d.toMillis() % 1000 == 0
                      && d.getSeconds() >= 2
                      && d.getSeconds() <= 3600,
              "whole seconds between 2 s and 1 h (etcd's minimum is ~2 s)");

  /** The field {@code callDeadlineMs}. */
  public static final OptionFields.Field<MetadataOptions, Duration> CALL_DEADLINE =
      OptionFields.field(
              "callDeadlineMs",
              OptionKind.MILLIS,
              null,
              MetadataOptions::getCallDeadline,
              MetadataOptions::setCallDeadline)
          .check(
              d -> d == null || deadline(d),
              "1 ms to 10 min (unset: the engine's handshakeDeadlineMs)");

  /** The field {@code healthCheckIntervalMs}. */
  public static final OptionFields.Field<MetadataOptions, Duration> HEALTH_CHECK_INTERVAL =
      OptionFields.field(
              "healthCheckIntervalMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(1),
              MetadataOptions::getHealthCheckInterval,
              MetadataOptions::setHealthCheckInterval)
          .check(MetadataOptions::deadline, "1 ms to 10 min");

  /** The field {@code startDeadlineMs}. */
  public static final OptionFields.Field<MetadataOptions, Duration> START_DEADLINE =
      OptionFields.field(
              "startDeadlineMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(30),
              MetadataOptions::getStartDeadline,
              MetadataOptions::setStartDeadline)
          .check(MetadataOptions::deadline, "1 ms to 10 min");

  /** The fields: JSON names, kinds, defaults, ranges. */
  public static final OptionFields<MetadataOptions> FIELDS =
      OptionFields.of(
          CLUSTER_PREFIX,
          LEASE_TTL,
          CALL_DEADLINE,
          HEALTH_CHECK_INTERVAL,
          START_DEADLINE,
          OptionFields.field(
              "etcdUser",
              OptionKind.STRING,
              null,
              MetadataOptions::getEtcdUser,
              MetadataOptions::setEtcdUser),
          OptionFields.field(
              "etcdPassword",
              OptionKind.STRING,
              null,
              MetadataOptions::getEtcdPassword,
              MetadataOptions::setEtcdPassword),
          OptionFields.field(
              "tlsTrustPemPath",
              OptionKind.STRING,
              null,
              MetadataOptions::getTlsTrustPemPath,
              MetadataOptions::setTlsTrustPemPath),
          OptionFields.field(
              "tlsCertPemPath",
              OptionKind.STRING,
              null,
              MetadataOptions::getTlsCertPemPath,
              MetadataOptions::setTlsCertPemPath),
          OptionFields.field(
              "tlsKeyPemPath",
              OptionKind.STRING,
              null,
              MetadataOptions::getTlsKeyPemPath,
              MetadataOptions::setTlsKeyPemPath));

  private String clusterPrefix;
  private Duration leaseTtl;
  private Duration callDeadline;
  private Duration healthCheckInterval;
  private Duration startDeadline;
  private String etcdUser;
  private String etcdPassword;
  private String tlsTrustPemPath;
  private String tlsCertPemPath;
  private String tlsKeyPemPath;

  /** Creates metadata options with the defaults. */
  public MetadataOptions() {
    FIELDS.applyDefaults(this);
  }

  /**
   * Copies options.
   *
   * @param other the options to copy
   */
  public MetadataOptions(MetadataOptions other) {
    FIELDS.copy(other, this);
  }

  /**
   * @param json the metadata options; absent keys keep their defaults
   * @return them, types checked (ranges by {@link #validate()})
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a value of the wrong type
   */
  public static MetadataOptions fromJson(JsonObject json) {
    MetadataOptions o = new MetadataOptions();
    FIELDS.read(json, o, "metadata option", "");
    return o;
  }

  /**
   * @return the options as JSON (set fields only; the etcd password included)
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public MetadataOptions validate() {
    FIELDS.validate(this, "metadata option", "");
    return this;
  }

  private static boolean validPrefix(String prefix) {
    return prefix != null
        && prefix.startsWith("/")
        && prefix.length() >= 2
        && !prefix.contains("//")
        && prefix.chars().noneMatch(c -> c <= ' ' || c >= 0x7f);
  }

  private static boolean deadline(Duration d) {
    return d != null && d.toMillis() >= 1 && d.compareTo(MAX_DEADLINE) <= 0;
  }

  /**
   * @return the key prefix of the cluster
   */
  public String getClusterPrefix() {
    return clusterPrefix;
  }

  /**
   * @param clusterPrefix the key prefix of the cluster, e.g. {@code /vte/prod}
   * @return this
   */
  public MetadataOptions setClusterPrefix(String clusterPrefix) {
    this.clusterPrefix = clusterPrefix;
    return this;
  }

  /**
   * @return how long a dead node's entries outlive it
   */
  public Duration getLeaseTtl() {
    return leaseTtl;
  }

  /**
   * @param leaseTtl how long a dead node's entries outlive it, whole seconds
   * @return this
   */
  public MetadataOptions setLeaseTtl(Duration leaseTtl) {
    this.leaseTtl = leaseTtl;
    return this;
  }

  /**
   * @return the deadline of one backend call; null for the engine's handshake deadline
   */
  public Duration getCallDeadline() {
    return callDeadline;
  }

  /**
   * @param callDeadline the deadline of one backend call; null for the handshake deadline
   * @return this
   */
  public MetadataOptions setCallDeadline(Duration callDeadline) {
    this.callDeadline = callDeadline;
    return this;
  }

  /**
   * @return the period of the etcd health probe
   */
  public Duration getHealthCheckInterval() {
    return healthCheckInterval;
  }

  /**
   * @param healthCheckInterval the period of the etcd health probe
   * @return this
   */
  public MetadataOptions setHealthCheckInterval(Duration healthCheckInterval) {
    this.healthCheckInterval = healthCheckInterval;
    return this;
  }

  /**
   * @return how long a starting node repeats its first calls to a slow or absent backend
   */
  public Duration getStartDeadline() {
    return startDeadline;
  }

  /**
   * @param startDeadline how long a starting node waits for the backend
   * @return this
   */
  public MetadataOptions setStartDeadline(Duration startDeadline) {
    this.startDeadline = startDeadline;
    return this;
  }

  /**
   * @return the etcd user, or null for no authentication
   */
  public String getEtcdUser() {
    return etcdUser;
  }

  /**
   * @param etcdUser the etcd user (with a password), or null
   * @return this
   */
  public MetadataOptions setEtcdUser(String etcdUser) {
    this.etcdUser = etcdUser;
    return this;
  }

  /**
   * @return the etcd password, or null
   */
  public String getEtcdPassword() {
    return etcdPassword;
  }

  /**
   * @param etcdPassword the etcd password
   * @return this
   */
  public MetadataOptions setEtcdPassword(String etcdPassword) {
    this.etcdPassword = etcdPassword;
    return this;
  }

  /**
   * @return the PEM file of CAs trusted for etcd's certificate ({@code etcds://}), or null for the
   *     JDK's
   */
  public String getTlsTrustPemPath() {
    return tlsTrustPemPath;
  }

  /**
   * @param path the PEM file of CAs that sign etcd's certificate
   * @return this
   */
  public MetadataOptions setTlsTrustPemPath(String path) {
    this.tlsTrustPemPath = path;
    return this;
  }

  /**
   * @return the PEM client certificate chain for etcd mutual TLS, or null
   */
  public String getTlsCertPemPath() {
    return tlsCertPemPath;
  }

  /**
   * @param path the PEM client certificate chain
   * @return this
   */
  public MetadataOptions setTlsCertPemPath(String path) {
    this.tlsCertPemPath = path;
    return this;
  }

  /**
   * @return the PEM (PKCS#8) client private key for etcd mutual TLS, or null
   */
  public String getTlsKeyPemPath() {
    return tlsKeyPemPath;
  }

  /**
   * @param path the PEM (PKCS#8) client private key
   * @return this
   */
  public MetadataOptions setTlsKeyPemPath(String path) {
    this.tlsKeyPemPath = path;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MetadataOptions other && toJson().equals(other.toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return "MetadataOptions{prefix="
        + clusterPrefix
        + ", leaseTtl="
        + leaseTtl
        + ", callDeadline="
        + callDeadline
        + ", user="
        + etcdUser
        + "}";
  }
}
