package io.vte.handshake;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.TlsOptions;
import io.vte.api.VteException;
import io.vte.handshake.impl.OptionsJson;
import java.time.Duration;

/** Options of a {@link HandshakeClientPool}: default deadline, auth, TLS trust and limits. */
public final class HandshakeClientOptions {

  /** Default deadline of a call made without one. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(5);

  /** Default largest accepted reply, 1 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_SIZE = 1024 * 1024;

  private Duration defaultDeadline = DEFAULT_DEADLINE;
  private HandshakeAuth auth;
  private TlsOptions tls;
  private int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;

  /** Creates default options: 5 s deadline, no auth, no TLS, 1 MiB messages. */
  public HandshakeClientOptions() {}

  /**
   * @param json {@code {"defaultDeadlineMs", "maxMessageSize", "auth": {...}, "tls": {...}}}
   * @return the options; missing fields keep their defaults
   * @throws VteException INVALID_CONFIGURATION naming a bad field
   */
  public static HandshakeClientOptions fromJson(JsonObject json) {
    try {
      HandshakeClientOptions options =
          new HandshakeClientOptions()
              .setDefaultDeadline(
                  Duration.ofMillis(json.getLong("defaultDeadlineMs", DEFAULT_DEADLINE.toMillis())))
              .setMaxMessageSize(json.getInteger("maxMessageSize", DEFAULT_MAX_MESSAGE_SIZE))
              .setAuth(OptionsJson.authFromJson(json.getJsonObject("auth")));
      JsonObject tls = json.getJsonObject("tls");
      return options.setTls(tls == null ? null : TlsOptions.fromJson(tls));
    } catch (ClassCastException e) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "handshake client options: wrong JSON type: " + e.getMessage());
    }
  }

  /**
   * @return these options as JSON; the auth secret is never written
   */
  public JsonObject toJson() {
    JsonObject json =
        new JsonObject()
            .put("defaultDeadlineMs", defaultDeadline.toMillis())
            .put("maxMessageSize", maxMessageSize);
    if (auth != null) {
      json.put("auth", OptionsJson.authToJson(auth));
    }
    if (tls != null) {
      json.put("tls", tls.toJson());
    }
    return json;
  }

  /**
   * @return the deadline of calls made without one
   */
  public Duration getDefaultDeadline() {
    return defaultDeadline;
  }

  /**
   * @param defaultDeadline the deadline of calls made without one, at least 1 ms
   * @return this
   */
  public HandshakeClientOptions setDefaultDeadline(Duration defaultDeadline) {
    if (defaultDeadline == null || defaultDeadline.toMillis() < 1) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "handshake defaultDeadline must be >= 1 ms: " + defaultDeadline);
    }
    this.defaultDeadline = defaultDeadline;
    return this;
  }

  /**
   * @return the auth used to sign every request, or null when auth is off
   */
  public HandshakeAuth getAuth() {
    return auth;
  }

  /**
   * @param auth the auth used to sign every request, or null to send unsigned requests
   * @return this
   */
  public HandshakeClientOptions setAuth(HandshakeAuth auth) {
    this.auth = auth;
    return this;
  }

  /**
   * @return the TLS trust, or null when the client speaks plain HTTP/2
   */
  public TlsOptions getTls() {
    return tls;
  }

  /**
   * @param tls the TLS trust (CA bundle), or null for plain HTTP/2
   * @return this
   */
  public HandshakeClientOptions setTls(TlsOptions tls) {
    this.tls = tls;
    return this;
  }

  /**
   * @return the largest request sent or reply accepted, in bytes
   */
  public int getMaxMessageSize() {
    return maxMessageSize;
  }

  /**
   * @param maxMessageSize the largest request sent or reply accepted, 1 KiB..64 MiB
   * @return this
   */
  public HandshakeClientOptions setMaxMessageSize(int maxMessageSize) {
    this.maxMessageSize = OptionsJson.checkMessageSize("handshake maxMessageSize", maxMessageSize);
    return this;
  }
}
