package io.vte.api;

import io.vertx.core.json.JsonObject;
import java.util.Base64;

/**
 * One shared handshake key: its id and its secret in base64, {@code {"keyId", "secretBase64"}}. An
 * engine signs with the key of its {@link AuthOptions} and also accepts its {@link
 * AuthOptions#getAcceptKeys() acceptKeys}.
 */
public final class AuthKey {

  /** The fields: JSON names, kinds, checks. */
  public static final OptionFields<AuthKey> FIELDS =
      OptionFields.of(
          OptionFields.field("keyId", OptionKind.STRING, null, AuthKey::getKeyId, AuthKey::setKeyId)
              .check(AuthKey::validKeyId, "a non-blank key id"),
          OptionFields.field(
                  "secretBase64",
                  OptionKind.STRING,
                  null,
                  AuthKey::getSecretBase64,
                  AuthKey::setSecretBase64)
              .check(AuthKey::validSecret, "the shared secret in base64"));

  private String keyId;
  private String secretBase64;

  /** Creates an empty key; set both fields. */
  public AuthKey() {
    FIELDS.applyDefaults(this);
  }

  /**
   * @param json {@code {"keyId", "secretBase64"}}
   * @return the key, types checked (ranges by {@link EngineOptions#validate()})
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a value of the wrong type
   */
  public static AuthKey fromJson(JsonObject json) {
    AuthKey key = new AuthKey();
    FIELDS.read(json, key, "auth option", "");
    return key;
  }

  /**
   * @return the key as JSON, secret included
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  static boolean validKeyId(String keyId) {
    return keyId != null && !keyId.isBlank();
  }

  static boolean validSecret(String secretBase64) {
    if (secretBase64 == null || secretBase64.isEmpty()) {
      return false;
    }
    try {
      Base64.getDecoder().decode(secretBase64);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * @return the key id
   */
  public String getKeyId() {
    return keyId;
  }

  /**
   * @param keyId the key id
   * @return this
   */
  public AuthKey setKeyId(String keyId) {
    this.keyId = keyId;
    return this;
  }

  /**
   * @return the secret in base64
   */
  public String getSecretBase64() {
    return secretBase64;
  }

  /**
   * @param secretBase64 the secret in base64
   * @return this
   */
  public AuthKey setSecretBase64(String secretBase64) {
    this.secretBase64 = secretBase64;
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthKey other && toJson().equals(other.toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }
}
