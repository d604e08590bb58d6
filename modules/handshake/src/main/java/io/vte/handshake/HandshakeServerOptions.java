package io.vte.handshake;

import static io.vte.api.OptionFields.field;

import io.vertx.core.json.JsonObject;
import io.vte.api.OptionFields;
import io.vte.api.OptionFields.Field;
import io.vte.api.OptionKind;
import io.vte.api.SoftDeviceSpec;
import io.vte.api.TlsOptions;
import io.vte.api.VteException;
import io.vte.handshake.impl.OptionsJson;
import java.time.Duration;

/**
 * Options of a {@link HandshakeServer}: where it listens, auth, TLS and limits, declared once in
 * {@link #FIELDS}. Setters check their value against its field's range; {@link #fromJson} reads
 * strictly (an unknown key or a value of the wrong type is refused by name).
 */
public final class HandshakeServerOptions {

  private static final String LABEL = "handshake server option";

  /** The field {@code host}: the listen host, by default 127.0.0.1. */
  public static final Field<HandshakeServerOptions, String> HOST =
      field(
              "host",
              OptionKind.STRING,
              SoftDeviceSpec.DEFAULT_HOST,
              o -> o.host,
              (HandshakeServerOptions o, String v) -> o.host = v)
          .check(h -> h != null && !h.isEmpty(), "a host name or address");

  /** The field {@code port}: 0 for any free port. */
  public static final Field<HandshakeServerOptions, Integer> PORT =
      field(
              "port",
              OptionKind.INT,
              0,
              o -> o.port,
              (HandshakeServerOptions o, Integer v) -> o.port = v)
          .check(p -> p >= 0 && p <= 65535, "0..65535 (0 = any free port)");

  /** The field {@code maxMessageSize}: the client's, 1 MiB. */
  public static final Field<HandshakeServerOptions, Integer> MAX_MESSAGE_SIZE =
      HandshakeClientOptions.MAX_MESSAGE_SIZE.as(
          "maxMessageSize", o -> o.maxMessageSize, (o, v) -> o.maxMessageSize = v);

  /** The field {@code maxCallDurationMs}: 30 s. */
  public static final Field<HandshakeServerOptions, Duration> MAX_CALL_DURATION =
      field(
              "maxCallDurationMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(30),
              o -> o.maxCallDuration,
              (HandshakeServerOptions o, Duration v) -> o.maxCallDuration = v)
          .check(HandshakeServerOptions::atLeastOneMilli, ">= 1 ms");

  /** The field {@code idleTimeoutMs}: 120 s. */
  public static final Field<HandshakeServerOptions, Duration> IDLE_TIMEOUT =
      field(
              "idleTimeoutMs",
              OptionKind.MILLIS,
              Duration.ofSeconds(120),
              o -> o.idleTimeout,
              (HandshakeServerOptions o, Duration v) -> o.idleTimeout = v)
          .check(HandshakeServerOptions::atLeastOneMilli, ">= 1 ms");

  /** The fields, in JSON order. */
  public static final OptionFields<HandshakeServerOptions> FIELDS =
      OptionFields.of(
          HOST,
          PORT,
          MAX_MESSAGE_SIZE,
          MAX_CALL_DURATION,
          IDLE_TIMEOUT,
          field("auth", OptionsJson.AUTH, null, o -> o.auth, (o, v) -> o.auth = v),
          field("tls", OptionsJson.TLS, null, o -> o.tls, (o, v) -> o.tls = v));

  private String host;
  private int port;
  private HandshakeAuth auth;
  private TlsOptions tls;
  private int maxMessageSize;
  private Duration maxCallDuration;
  private Duration idleTimeout;

  /**
   * Creates default options: 127.0.0.1, a random port, no auth, no TLS, 1 MiB messages, calls
   * answered within 30 s, idle connections closed after 120 s.
   */
  public HandshakeServerOptions() {
    FIELDS.applyDefaults(this);
  }

  /**
   * @param json {@code {"host", "port", "maxMessageSize", "maxCallDurationMs", "idleTimeoutMs",
   *     "auth": {...}, "tls": {...}}}
   * @return the options, validated; missing fields keep their defaults
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a bad field and its value
   */
  public static HandshakeServerOptions fromJson(JsonObject json) {
    HandshakeServerOptions options = new HandshakeServerOptions();
    FIELDS.read(json, options, LABEL, "");
    FIELDS.validate(options, LABEL, "");
    return options;
  }

  /**
   * @return these options as JSON; the auth secret is never written
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  private static boolean atLeastOneMilli(Duration d) {
    return d != null && d.toMillis() >= 1;
  }

  /**
   * @return the listen host, also the host part of the server name
   */
  public String getHost() {
    return host;
  }

  /**
   * @param host the listen host, also the host part of the server name
   * @return this
   */
  public HandshakeServerOptions setHost(String host) {
    this.host = HOST.require(host, LABEL);
    return this;
  }

  /**
   * @return the listen port, 0 for a random one
   */
  public int getPort() {
    return port;
  }

  /**
   * @param port the listen port 0..65535, 0 for a random one
   * @return this
   */
  public HandshakeServerOptions setPort(int port) {
    this.port = PORT.require(port, LABEL);
    return this;
  }

  /**
   * @return the auth every request must carry, or null when auth is off
   */
  public HandshakeAuth getAuth() {
    return auth;
  }

  /**
   * @param auth the auth every request must carry, or null to turn auth off
   * @return this
   */
  public HandshakeServerOptions setAuth(HandshakeAuth auth) {
    this.auth = auth;
    return this;
  }

  /**
   * @return the TLS key and certificate, or null when TLS is off
   */
  public TlsOptions getTls() {
    return tls;
  }

  /**
   * @param tls the TLS key and certificate, or null to serve plain HTTP/2
   * @return this
   */
  public HandshakeServerOptions setTls(TlsOptions tls) {
    this.tls = tls;
    return this;
  }

  /**
   * @return the largest accepted request in bytes
   */
  public int getMaxMessageSize() {
    return maxMessageSize;
  }

  /**
   * @param maxMessageSize the largest accepted request in bytes, 1 KiB..64 MiB
   * @return this
   */
  public HandshakeServerOptions setMaxMessageSize(int maxMessageSize) {
    this.maxMessageSize = MAX_MESSAGE_SIZE.require(maxMessageSize, LABEL);
    return this;
  }

  /**
   * @return the longest a call may stay unanswered when its caller set no shorter deadline
   */
  public Duration getMaxCallDuration() {
    return maxCallDuration;
  }

  /**
   * @param maxCallDuration the longest a call may stay unanswered (DEADLINE_EXCEEDED after it), >=
   *     1 ms
   * @return this
   */
  public HandshakeServerOptions setMaxCallDuration(Duration maxCallDuration) {
    this.maxCallDuration = MAX_CALL_DURATION.require(maxCallDuration, LABEL);
    return this;
  }

  /**
   * @return the time after which a connection with no traffic is closed
   */
  public Duration getIdleTimeout() {
    return idleTimeout;
  }

  /**
   * @param idleTimeout the time after which a connection with no traffic is closed, >= 1 ms
   * @return this
   */
  public HandshakeServerOptions setIdleTimeout(Duration idleTimeout) {
    this.idleTimeout = IDLE_TIMEOUT.require(idleTimeout, LABEL);
    return this;
  }
}
