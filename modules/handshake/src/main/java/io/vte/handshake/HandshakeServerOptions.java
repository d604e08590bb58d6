package io.vte.handshake;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.TlsOptions;
import io.vte.api.VteException;
import io.vte.handshake.impl.OptionsJson;
import java.time.Duration;

/** Options of a {@link HandshakeServer}: where it listens, auth, TLS and limits. */
public final class HandshakeServerOptions {

  /** Default listen host. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /** Default largest accepted request, 1 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_SIZE = 1024 * 1024;

  /** Default longest a call may stay unanswered when its caller set no shorter deadline. */
  public static final Duration DEFAULT_MAX_CALL_DURATION = Duration.ofSeconds(30);

  /** Default time after which a connection with no traffic is closed. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(120);

  private String host = DEFAULT_HOST;
  private int port;
  private HandshakeAuth auth;
  private TlsOptions tls;
  private int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
  private Duration maxCallDuration = DEFAULT_MAX_CALL_DURATION;
  private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;

  /**
   * Creates default options: 127.0.0.1, a random port, no auth, no TLS, 1 MiB messages, calls
   * answered within 30 s, idle connections closed after 120 s.
   */
  public HandshakeServerOptions() {}

  /**
   * @param json {@code {"host", "port", "maxMessageSize", "maxCallDurationMs", "idleTimeoutMs",
   *     "auth": {"keyId", "secretBase64", "skewMs"}, "tls": {...}}}
   * @return the options; missing fields keep their defaults
   * @throws VteException INVALID_CONFIGURATION naming a bad field
   */
  public static HandshakeServerOptions fromJson(JsonObject json) {
    try {
      HandshakeServerOptions options =
          new HandshakeServerOptions()
              .setHost(json.getString("host", DEFAULT_HOST))
              .setPort(json.getInteger("port", 0))
              .setMaxMessageSize(json.getInteger("maxMessageSize", DEFAULT_MAX_MESSAGE_SIZE))
              .setMaxCallDuration(
                  Duration.ofMillis(
                      json.getLong("maxCallDurationMs", DEFAULT_MAX_CALL_DURATION.toMillis())))
              .setIdleTimeout(
                  Duration.ofMillis(json.getLong("idleTimeoutMs", DEFAULT_IDLE_TIMEOUT.toMillis())))
              .setAuth(OptionsJson.authFromJson(json.getJsonObject("auth")));
      JsonObject tls = json.getJsonObject("tls");
      return options.setTls(tls == null ? null : TlsOptions.fromJson(tls));
    } catch (ClassCastException e) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "handshake server options: wrong JSON type: " + e.getMessage());
    }
  }

  /**
   * @return these options as JSON; the auth secret is never written
   */
  public JsonObject toJson() {
    JsonObject json =
        new JsonObject()
            .put("host", host)
            .put("port", port)
            .put("maxMessageSize", maxMessageSize)
            .put("maxCallDurationMs", maxCallDuration.toMillis())
            .put("idleTimeoutMs", idleTimeout.toMillis());
    if (auth != null) {
      json.put("auth", OptionsJson.authToJson(auth));
    }
    if (tls != null) {
      json.put("tls", tls.toJson());
    }
    return json;
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
    if (host == null || host.isEmpty()) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "handshake host must not be empty");
    }
    this.host = host;
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
    if (port < 0 || port > 65535) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, "handshake port must be 0..65535: " + port);
    }
    this.port = port;
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
    this.maxMessageSize = OptionsJson.checkMessageSize("handshake maxMessageSize", maxMessageSize);
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
    if (maxCallDuration == null || maxCallDuration.toMillis() < 1) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "handshake maxCallDuration must be >= 1 ms: " + maxCallDuration);
    }
    this.maxCallDuration = maxCallDuration;
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
    if (idleTimeout == null || idleTimeout.toMillis() < 1) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, "handshake idleTimeout must be >= 1 ms: " + idleTimeout);
    }
    this.idleTimeout = idleTimeout;
    return this;
  }
}
