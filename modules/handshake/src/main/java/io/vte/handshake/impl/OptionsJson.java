package io.vte.handshake.impl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeAuth;
import java.time.Duration;

/**
 * Shared parts of the server and client option files: the auth object {@code {"keyId",
 * "secretBase64", "skewMs", "acceptKeys": [{"keyId", "secretBase64"}, ...]}} (secrets are read,
 * never written back) and the message size limit.
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
    HandshakeAuth auth = HandshakeAuth.sharedSecret(json.getString("keyId"), secret(json, "auth"));
    JsonArray accepted = json.getJsonArray("acceptKeys");
    for (int i = 0; accepted != null && i < accepted.size(); i++) {
      String field = "auth.acceptKeys[" + i + "]";
      if (!(accepted.getValue(i) instanceof JsonObject key)) {
        throw new VteException(
            ErrorCode.INVALID_CONFIGURATION, field + " must be an object {keyId, secretBase64}");
      }
      auth = auth.withAcceptedKey(key.getString("keyId"), secret(key, field));
    }
    Long skewMs = json.getLong("skewMs");
    return skewMs == null ? auth : auth.withSkew(Duration.ofMillis(skewMs));
  }

  private static byte[] secret(JsonObject key, String field) {
    return HandshakeAuth.decodeSecret(field, key.getString("secretBase64"));
  }

  /**
   * @param auth the auth, or null
   * @return its key id, skew and the ids of the other accepted keys (never a secret), or null
   */
  public static JsonObject authToJson(HandshakeAuth auth) {
    if (auth == null) {
      return null;
    }
    JsonArray accepted = new JsonArray();
    auth.acceptedKeyIds().stream().filter(id -> !id.equals(auth.keyId())).forEach(accepted::add);
    return new JsonObject()
        .put("keyId", auth.keyId())
        .put("skewMs", auth.skew().toMillis())
        .put("acceptKeyIds", accepted);
  }

  /**
   * @param field the option name
   * @param value a message size limit
   * @return the value when in 1 KiB..64 MiB
   */
  public static int checkMessageSize(String field, long value) {
    if (value < 1024 || value > 64L * 1024 * 1024) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, field + " must be 1 KiB..64 MiB: " + value);
    }
    return (int) value;
  }
}
