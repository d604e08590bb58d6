package io.vte.handshake;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.impl.OptionsJson;

/** Options of a {@link HandshakeServer}: where it listens, auth, TLS and limits. */
public final class HandshakeServerOptions {

  /** Default listen host. */
  public static final String DEFAULT_HOST = "127.0.0.1";
  /** Default largest accepted request, 1 MiB. */
  public static final int DEFAULT_MAX_MESSAGE_SIZE = 1024 * 1024;

  private String host = DEFAULT_HOST;
  private int port;
  private HandshakeAuth auth;
  private TlsOptions tls;
  private int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;

  /** Creates default options: 127.0.0.1, a random port, no auth, no TLS, 1 MiB messages. */
  public HandshakeServerOptions() {}

  /**
   * @param json {@code {"host", "port", "maxMessageSize", "auth": {"keyId", "secretBase64", "skewMs"}, "tls": {...}}}
   * @return the options; missing fields keep their defaults
   * @throws VteException INVALID_CONFIGURATION naming a bad field
   */
  public static HandshakeServerOptions fromJson(JsonObject json) {
    try {
      HandshakeServerOptions options = new HandshakeServerOptions()
          .setHost(json.getString("host", DEFAULT_HOST))
          .setPort(json.getInteger("port", 0))
          .setMaxMessageSize(json.getInteger("maxMessageSize", DEFAULT_MAX_MESSAGE_SIZE))
          .setAuth(OptionsJson.authFromJson(json.getJsonObject("auth")));
      JsonObject tls = json.getJsonObject("tls");
      return options.setTls(tls == null ? null : TlsOptions.fromJson(tls));
    } catch (ClassCastException e) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "handshake server options: wrong JSON type: " + e.getMessage());
    }
  }

  /** @return these options as JSON; the auth secret is never written */
  public JsonObject toJson() {
    JsonObject json = new JsonObject().put("host", host).put("port", port).put("maxMessageSize", maxMessageSize);
    if (auth != null) {
      json.put("auth", OptionsJson.authToJson(auth));
    }
    if (tls != null) {
      json.put("tls", tls.toJson());
    }
    return json;
  }

  /** @return the listen host, also the host part of the server name */
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

  /** @return the listen port, 0 for a random one */
  public int getPort() {
    return port;
  }

  /**
   * @param port the listen port 0..65535, 0 for a random one
   * @return this
   */
  public HandshakeServerOptions setPort(int port) {
    if (port < 0 || port > 65535) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "handshake port must be 0..65535: " + port);
    }
    this.port = port;
    return this;
  }

  /** @return the auth every request must carry, or null when auth is off */
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

  /** @return the TLS key and certificate, or null when TLS is off */
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

  /** @return the largest accepted request in bytes */
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
}
