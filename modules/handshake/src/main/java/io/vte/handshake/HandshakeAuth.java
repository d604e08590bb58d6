package io.vte.handshake;

import com.google.protobuf.ByteString;
import com.google.protobuf.MessageLite;
import io.vte.api.AuthKey;
import io.vte.api.AuthOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.impl.NonceCache;
import io.vte.handshake.proto.Auth;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Shared-secret (HMAC-SHA256) authentication of handshake calls.
 *
 * <p>A client signs each request with a token {@code Auth{key_id, timestamp_ms, nonce, mac}} where
 * {@code mac = HMAC(secret, method || 0 || timestamp (8 bytes, big endian) || nonce (16 bytes) ||
 * request serialized with auth cleared)}. A server verifies the key id, the MAC (constant-time),
 * that the timestamp is within the skew window of its clock, and that the nonce was not seen within
 * the window. Any failure is {@link ErrorCode#PERMISSION_DENIED}.
 *
 * <p>Keys rotate without downtime: a verifier also accepts the keys added with {@link
 * #withAcceptedKey}. Add the new key as accepted on every node, then make it the signing key
 * everywhere (keeping the old one accepted), then drop the old one.
 */
public final class HandshakeAuth {

  /** Default tolerated clock difference between signer and verifier. */
  public static final Duration DEFAULT_SKEW = Duration.ofSeconds(30);

  /** Default number of live nonces a verifier remembers. */
  public static final int DEFAULT_REPLAY_CACHE_SIZE = 65_536;

  /** Nonce length in bytes. */
  public static final int NONCE_LENGTH = 16;

  /** Shortest accepted secret in bytes. */
  public static final int MIN_SECRET_LENGTH = 16;

  private static final String HMAC = "HmacSHA256";
  private static final int MAC_LENGTH = 32;
  private static final int MAX_KEY_ID_LENGTH = 256;

  private final String keyId;
  private final SecretKeySpec key;

  /** Every key a token may be signed with, by id: the signing key and the accepted ones. */
  private final Map<String, SecretKeySpec> verifyKeys;

  private final LongSupplier clockMs;
  private final long skewMs;
  private final NonceCache nonces;
  private final SecureRandom random = new SecureRandom();

  private HandshakeAuth(
      String keyId,
      SecretKeySpec key,
      Map<String, SecretKeySpec> verifyKeys,
      LongSupplier clockMs,
      long skewMs,
      int replayCacheSize) {
    this.keyId = keyId;
    this.key = key;
    this.verifyKeys = Collections.unmodifiableMap(new LinkedHashMap<>(verifyKeys));
    this.clockMs = clockMs;
    this.skewMs = skewMs;
    this.nonces = new NonceCache(replayCacheSize);
  }

  /**
   * @param keyId names the secret (sent in clear with each token), 1..256 chars
   * @param secret the shared secret, at least {@value #MIN_SECRET_LENGTH} bytes; copied
   * @return auth with the default skew window and replay cache, on the system clock
   * @throws VteException INVALID_CONFIGURATION for an empty key id or a short secret
   */
  public static HandshakeAuth sharedSecret(String keyId, byte[] secret) {
    SecretKeySpec key = checkedKey(keyId, secret);
    return new HandshakeAuth(
        keyId,
        key,
        Map.of(keyId, key),
        System::currentTimeMillis,
        DEFAULT_SKEW.toMillis(),
        DEFAULT_REPLAY_CACHE_SIZE);
  }

  /**
   * @param options an engine's authentication options: the key it signs with, the other keys it
   *     accepts, the skew
   * @return auth for them, on the system clock
   * @throws VteException INVALID_CONFIGURATION naming a missing or undecodable secret, a bad or
   *     duplicate key id or a short secret
   */
  public static HandshakeAuth from(AuthOptions options) {
    HandshakeAuth auth =
        sharedSecret(options.getKeyId(), decodeSecret("auth", options.getSecretBase64()));
    List<AuthKey> accepted = options.getAcceptKeys() == null ? List.of() : options.getAcceptKeys();
    for (int i = 0; i < accepted.size(); i++) {
      AuthKey key = accepted.get(i);
      auth =
          auth.withAcceptedKey(
              key.getKeyId(), decodeSecret("auth.acceptKeys[" + i + "]", key.getSecretBase64()));
    }
    return options.getSkew() == null ? auth : auth.withSkew(options.getSkew());
  }

  /**
   * @param field the option named in errors, e.g. {@code auth}
   * @param secretBase64 a secret in base64
   * @return the secret
   * @throws VteException INVALID_CONFIGURATION when it is missing or not base64
   */
  public static byte[] decodeSecret(String field, String secretBase64) {
    if (secretBase64 == null) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, field + ".secretBase64 is required");
    }
    try {
      return Base64.getDecoder().decode(secretBase64);
    } catch (IllegalArgumentException e) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          field + ".secretBase64 is not base64: " + e.getMessage());
    }
  }

  /**
   * Accepts tokens signed with one more key, for rotation; this auth still signs with its own key.
   *
   * @param acceptedKeyId names the other secret, 1..256 chars, not one this auth already knows
   * @param secret the other secret, at least {@value #MIN_SECRET_LENGTH} bytes; copied
   * @return a copy that also verifies tokens of that key, with a fresh replay cache
   * @throws VteException INVALID_CONFIGURATION for a bad or duplicate key id or a short secret
   */
  public HandshakeAuth withAcceptedKey(String acceptedKeyId, byte[] secret) {
    SecretKeySpec accepted = checkedKey(acceptedKeyId, secret);
    if (verifyKeys.containsKey(acceptedKeyId)) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, "auth key id '" + acceptedKeyId + "' is given twice");
    }
    Map<String, SecretKeySpec> keys = new LinkedHashMap<>(verifyKeys);
    keys.put(acceptedKeyId, accepted);
    return new HandshakeAuth(keyId, key, keys, clockMs, skewMs, nonces.capacity());
  }

  private static SecretKeySpec checkedKey(String keyId, byte[] secret) {
    if (keyId == null || keyId.isEmpty() || keyId.length() > MAX_KEY_ID_LENGTH) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "auth keyId must be 1.."
              + MAX_KEY_ID_LENGTH
              + " chars: "
              + (keyId == null ? "null" : keyId.length() + " chars"));
    }
    if (secret == null || secret.length < MIN_SECRET_LENGTH) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "auth secret of key '"
              + keyId
              + "' must be at least "
              + MIN_SECRET_LENGTH
              + " bytes: "
              + (secret == null ? "null" : secret.length + " bytes"));
    }
    return new SecretKeySpec(secret.clone(), HMAC);
  }

  /**
   * @param clockMs the wall clock in milliseconds used to stamp and check tokens (tests use a fake
   *     one)
   * @return a copy on that clock, with a fresh replay cache
   */
  public HandshakeAuth withClock(LongSupplier clockMs) {
    return new HandshakeAuth(
        keyId,
        key,
        verifyKeys,
        Objects.requireNonNull(clockMs, "clockMs"),
        skewMs,
        nonces.capacity());
  }

  /**
   * @param skew the tolerated clock difference, positive
   * @return a copy with that window, with a fresh replay cache
   */
  public HandshakeAuth withSkew(Duration skew) {
    if (skew == null || skew.isNegative() || skew.isZero()) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, "auth skew must be positive: " + skew);
    }
    return new HandshakeAuth(keyId, key, verifyKeys, clockMs, skew.toMillis(), nonces.capacity());
  }

  /**
   * @param size the most live nonces remembered, >= 1
   * @return a copy with a fresh replay cache of that size
   */
  public HandshakeAuth withReplayCacheSize(int size) {
    if (size < 1) {
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION, "auth replayCacheSize must be >= 1: " + size);
    }
    return new HandshakeAuth(keyId, key, verifyKeys, clockMs, skewMs, size);
  }

  /**
   * @return the key id sent with each token
   */
  public String keyId() {
    return keyId;
  }

  /**
   * @return the ids of every key a token may be signed with: the signing key's and the accepted
   *     ones
   */
  public Set<String> acceptedKeyIds() {
    return verifyKeys.keySet();
  }

  /**
   * @return the tolerated clock difference
   */
  public Duration skew() {
    return Duration.ofMillis(skewMs);
  }

  /**
   * @param method the gRPC method name, e.g. {@code "Connect"}
   * @param requestWithoutAuth the request with its auth field cleared
   * @return a fresh token for that request
   */
  public Auth sign(String method, MessageLite requestWithoutAuth) {
    byte[] nonce = new byte[NONCE_LENGTH];
    random.nextBytes(nonce);
    long timestamp = clockMs.getAsLong();
    return Auth.newBuilder()
        .setKeyId(keyId)
        .setTimestampMs(timestamp)
        .setNonce(ByteString.copyFrom(nonce))
        .setMac(ByteString.copyFrom(mac(key, method, timestamp, nonce, requestWithoutAuth)))
        .build();
  }

  /**
   * Checks a token; on success its nonce is remembered so the same token is refused next time.
   *
   * @param method the gRPC method name the token must be for
   * @param requestWithoutAuth the request with its auth field cleared
   * @param token the token the request carried, or null when it had none
   * @throws VteException PERMISSION_DENIED naming what is wrong with the token
   */
  public void verify(String method, MessageLite requestWithoutAuth, Auth token) {
    if (token == null || token.equals(Auth.getDefaultInstance())) {
      throw denied(method, "no auth token");
    }
    SecretKeySpec tokenKey = verifyKeys.get(token.getKeyId());
    if (tokenKey == null) {
      throw denied(
          method, "unknown key id '" + HandshakeValidator.abbreviate(token.getKeyId()) + "'");
    }
    if (token.getNonce().size() != NONCE_LENGTH) {
      throw denied(method, "nonce must be " + NONCE_LENGTH + " bytes: " + token.getNonce().size());
    }
    if (token.getMac().size() != MAC_LENGTH) {
      throw denied(method, "mac must be " + MAC_LENGTH + " bytes: " + token.getMac().size());
    }
    long now = clockMs.getAsLong();
    long timestamp = token.getTimestampMs();
    if (Math.abs(now - timestamp) > skewMs) {
      throw denied(
          method,
          "stale token: timestamp "
              + timestamp
              + " is "
              + (now - timestamp)
              + " ms from now, window "
              + skewMs
              + " ms");
    }
    byte[] expected =
        mac(tokenKey, method, timestamp, token.getNonce().toByteArray(), requestWithoutAuth);
    if (!MessageDigest.isEqual(expected, token.getMac().toByteArray())) {
      throw denied(method, "bad mac");
    }
    switch (nonces.remember(token.getNonce(), timestamp + skewMs, now)) {
      case REPLAYED:
        throw denied(method, "replayed nonce");
      case FULL:
        throw denied(method, "replay cache full (" + nonces.capacity() + " live nonces)");
      default:
        break;
    }
  }

  private static byte[] mac(
      SecretKeySpec key, String method, long timestamp, byte[] nonce, MessageLite request) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(key);
      mac.update(method.getBytes(StandardCharsets.UTF_8));
      mac.update((byte) 0);
      mac.update(ByteBuffer.allocate(Long.BYTES).putLong(0, timestamp));
      mac.update(nonce);
      mac.update(request.toByteArray());
      return mac.doFinal();
    } catch (GeneralSecurityException e) {
      throw new VteException(ErrorCode.INTERNAL, "HmacSHA256 unavailable", e);
    }
  }

  private static VteException denied(String method, String why) {
    return new VteException(ErrorCode.PERMISSION_DENIED, method + ": " + why);
  }
}
