package io.vte.handshake.impl;

import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeAuth;
import java.time.Duration;
import java.util.Base64;

/**
 * Shared parts of the server and client option files: the auth object
 * {@code {"keyId", "secretBase64", "skewMs"}} (the secret is read, never written back) and the message
 * size limit.
 */
public final class OptionsJson {

  private OptionsJson() {}

  /**
   * @param json the auth object, or null
   * @return the auth, or null when json is null
   * @throws VteException INVALID_CONFIGURATION naming the bad field
   */
  public static HandshakeAuth authFromJson(JsonObject json) {
    if (json == null) {
      return null;
    }
    String secret = json.getString("secretBase64");
    if (secret == null) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "auth.secretBase64 is required");
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(secret);
    } catch (IllegalArgumentException e) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "auth.secretBase64 is not base64: " + e.getMessage());
    }
    HandshakeAuth auth = HandshakeAuth.sharedSecret(json.getString("keyId"), bytes);
    Long skewMs = json.getLong("skewMs");
    return skewMs == null ? auth : auth.withSkew(Duration.ofMillis(skewMs));
  }

  /**
   * @param auth the auth, or null
   * @return its key id and skew (never the secret), or null
   */
  public static JsonObject authToJson(HandshakeAuth auth) {
    return auth == null ? null : new JsonObject().put("keyId", auth.keyId()).put("skewMs", auth.skew().toMillis());
  }

  /**
   * @param field the option name
   * @param value a message size limit
   * @return the value when in 1 KiB..64 MiB
   */
  public static int checkMessageSize(String field, long value) {
    if (value < 1024 || value > 64L * 1024 * 1024) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, field + " must be 1 KiB..64 MiB: " + value);
    }
    return (int) value;
  }
}
