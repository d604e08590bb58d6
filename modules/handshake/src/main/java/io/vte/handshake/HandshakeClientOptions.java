package io.vte.handshake;

import static io.vte.api.OptionFields.field;

import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptionFields;
import io.vte.api.OptionFields;
import io.vte.api.OptionFields.Field;
import io.vte.api.OptionKind;
import io.vte.api.TlsOptions;
import io.vte.api.VteException;
import io.vte.handshake.impl.OptionsJson;
import java.time.Duration;

/**
 * Options of a {@link HandshakeClientPool}: default deadline, auth, TLS trust and limits, declared
 * once in {@link #FIELDS}. Setters check their value against its field's range; {@link #fromJson}
 * reads strictly (an unknown key or a value of the wrong type is refused by name).
 */
public final class HandshakeClientOptions {

  private static final String LABEL = "handshake client option";

  /** The field {@code defaultDeadlineMs}: the engine's {@code handshakeDeadlineMs}. */
  public static final Field<HandshakeClientOptions, Duration> DEFAULT_DEADLINE =
      EngineOptionFields.HANDSHAKE_DEADLINE.as(
          "defaultDeadlineMs", o -> o.defaultDeadline, (o, v) -> o.defaultDeadline = v);

  /** The field {@code maxMessageSize}: the largest request sent or reply accepted, 1 MiB. */
  public static final Field<HandshakeClientOptions, Integer> MAX_MESSAGE_SIZE =
      field(
              "maxMessageSize",
              OptionKind.BYTES,
              1024 * 1024,
              o -> o.maxMessageSize,
              (HandshakeClientOptions o, Integer v) -> o.maxMessageSize = v)
          .check(n -> n >= 1024 && n <= 64 * 1024 * 1024, "1 KiB..64 MiB");

  /** The fields, in JSON order. */
  public static final OptionFields<HandshakeClientOptions> FIELDS =
      OptionFields.of(
          DEFAULT_DEADLINE,
          MAX_MESSAGE_SIZE,
          field("auth", OptionsJson.AUTH, null, o -> o.auth, (o, v) -> o.auth = v),
          field("tls", OptionsJson.TLS, null, o -> o.tls, (o, v) -> o.tls = v));

  private Duration defaultDeadline;
  private HandshakeAuth auth;
  private TlsOptions tls;
  private int maxMessageSize;

  /** Creates default options: 5 s deadline, no auth, no TLS, 1 MiB messages. */
  public HandshakeClientOptions() {
    FIELDS.applyDefaults(this);
  }

  /**
   * @param json {@code {"defaultDeadlineMs", "maxMessageSize", "auth": {...}, "tls": {...}}}
   * @return the options, validated; missing fields keep their defaults
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a bad field and its value
   */
  public static HandshakeClientOptions fromJson(JsonObject json) {
    HandshakeClientOptions options = new HandshakeClientOptions();
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

  /**
   * @return the deadline of calls made without one
   */
  public Duration getDefaultDeadline() {
    return defaultDeadline;
  }

  /**
   * @param defaultDeadline the deadline of calls made without one, positive
   * @return this
   */
  public HandshakeClientOptions setDefaultDeadline(Duration defaultDeadline) {
    this.defaultDeadline = DEFAULT_DEADLINE.require(defaultDeadline, LABEL);
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
    this.maxMessageSize = MAX_MESSAGE_SIZE.require(maxMessageSize, LABEL);
    return this;
  }
}
