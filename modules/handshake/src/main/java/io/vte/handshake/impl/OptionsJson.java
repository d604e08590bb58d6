package io.vte.handshake.impl;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vte.api.AuthOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.HandshakeAuth;

/**
 * Shared parts of the server and client option files: the auth object (read as the engine's {@link
 * AuthOptions}, so both spell and check it the same way; secrets are read, never written back) and
 * the message size limit.
 */
public final class OptionsJson {

  private OptionsJson() {}

  /**
   * @param json the auth object, or null
   * @return the auth, or null when json is null
   * @throws VteException INVALID_CONFIGURATION naming the bad field
   */
  public static HandshakeAuth authFromJson(JsonObject json) {
    return json == null ? null : HandshakeAuth.from(AuthOptions.fromJson(json));
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
