package io.vte.api;

import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Handshake authentication of an engine: the shared key it signs its handshake calls with, the
 * other keys it accepts (for key rotation) and the clock skew it tolerates. JSON {@code {"keyId",
 * "secretBase64", "skewMs", "acceptKeys": [{"keyId", "secretBase64"}, ...]}}.
 */
public final class AuthOptions {

  /** The fields: JSON names, kinds, defaults, ranges. */
  public static final OptionFields<AuthOptions> FIELDS =
      OptionFields.of(
          OptionFields.field(
                  "keyId", OptionKind.STRING, null, AuthOptions::getKeyId, AuthOptions::setKeyId)
              .check(AuthKey::validKeyId, "a non-blank key id"),
          OptionFields.field(
                  "secretBase64",
                  OptionKind.STRING,
                  null,
                  AuthOptions::getSecretBase64,
                  AuthOptions::setSecretBase64)
              .check(AuthKey::validSecret, "the shared secret in base64"),
          OptionFields.field(
                  "skewMs", OptionKind.MILLIS, null, AuthOptions::getSkew, AuthOptions::setSkew)
              .check(
                  d -> d == null || (!d.isNegative() && !d.isZero()),
                  "positive (unset: the handshake's default)"),
          OptionFields.field(
                  "acceptKeys",
                  OptionKind.listOf(OptionKind.object(AuthKey.FIELDS, AuthKey::new)),
                  null,
                  AuthOptions::getAcceptKeys,
                  AuthOptions::setAcceptKeys)
              .check(
                  keys -> keys == null || !keys.contains(null),
                  "a list of {keyId, secretBase64} objects"));

  private String keyId;
  private String secretBase64;
  private Duration skew;
  private List<AuthKey> acceptKeys;

  /** Creates empty authentication options; set the key id and secret. */
  public AuthOptions() {
    FIELDS.applyDefaults(this);
  }

  /**
   * @param json the authentication options
   * @return them, types checked (ranges by {@link #validate()})
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a value of the wrong type
   */
  public static AuthOptions fromJson(JsonObject json) {
    AuthOptions o = new AuthOptions();
    FIELDS.read(json, o, "auth option", "");
    return o;
  }

  /**
   * @return the options as JSON, secrets included
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field
   */
  public AuthOptions validate() {
    FIELDS.validate(this, "auth option", "");
    return this;
  }

  /**
   * @return the id of the key this engine signs with
   */
  public String getKeyId() {
    return keyId;
  }

  /**
   * @param keyId the id of the key this engine signs with
   * @return this
   */
  public AuthOptions setKeyId(String keyId) {
    this.keyId = keyId;
    return this;
  }

  /**
   * @return the shared secret in base64
   */
  public String getSecretBase64() {
    return secretBase64;
  }

  /**
   * @param secretBase64 the shared secret in base64
   * @return this
   */
  public AuthOptions setSecretBase64(String secretBase64) {
    this.secretBase64 = secretBase64;
    return this;
  }

  /**
   * @return the clock skew tolerated, null for the handshake's default
   */
  public Duration getSkew() {
    return skew;
  }

  /**
   * @param skew the clock skew tolerated, null for the handshake's default
   * @return this
   */
  public AuthOptions setSkew(Duration skew) {
    this.skew = skew;
    return this;
  }

  /**
   * @return the other keys accepted, null for none
   */
  public List<AuthKey> getAcceptKeys() {
    return acceptKeys;
  }

  /**
   * @param acceptKeys the other keys accepted, null for none; copied
   * @return this
   */
  public AuthOptions setAcceptKeys(List<AuthKey> acceptKeys) {
    this.acceptKeys = acceptKeys == null ? null : new ArrayList<>(acceptKeys);
    return this;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AuthOptions other && toJson().equals(other.toJson());
  }

  @Override
  public int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return "AuthOptions{keyId="
        + keyId
        + ", skew="
        + skew
        + ", acceptKeys="
        + (acceptKeys == null ? 0 : acceptKeys.size())
        + "}";
  }
}
