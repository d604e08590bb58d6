package io.vte.handshake.impl;

import com.google.protobuf.ByteString;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Remembers the nonces of accepted auth tokens until their tokens go stale, so a token cannot be
 * replayed. Bounded: when full of live nonces it refuses new ones (fail closed) rather than
 * forgetting. Thread-safe.
 */
public final class NonceCache {

  private final int capacity;
  private final LinkedHashMap<ByteString, Long> expiryByNonce = new LinkedHashMap<>();

  /**
   * @param capacity the most live nonces remembered
   */
  public NonceCache(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1: " + capacity);
    }
    this.capacity = capacity;
  }

  /** Outcome of {@link #remember}. */
  public enum Outcome {
    /** First sighting: remembered. */
    FRESH,
    /** Seen before and still live: a replay. */
    REPLAYED,
    /** Too many live nonces to remember another one. */
    FULL
  }

  /**
   * @param nonce the token nonce
   * @param expiresAtMs when the token goes stale anyway and the nonce may be forgotten
   * @param nowMs the current time
   * @return whether the nonce was fresh, replayed, or could not be remembered
   */
  public synchronized Outcome remember(ByteString nonce, long expiresAtMs, long nowMs) {
    evictExpired(nowMs);
    Long expiry = expiryByNonce.get(nonce);
    if (expiry != null) {
      return Outcome.REPLAYED;
    }
    if (expiryByNonce.size() >= capacity) {
      return Outcome.FULL;
    }
    expiryByNonce.put(nonce, expiresAtMs);
    return Outcome.FRESH;
  }

  /**
   * @return the most live nonces remembered
   */
  public int capacity() {
    return capacity;
  }

  /**
   * @return how many nonces are remembered
   */
  public synchronized int size() {
    return expiryByNonce.size();
  }

  private void evictExpired(long nowMs) {
    // Insertion order approximates expiry order; one pass from the head stops at the first live
    // entry,
    // then a full sweep runs only when the cache is at capacity.
    Iterator<Map.Entry<ByteString, Long>> it = expiryByNonce.entrySet().iterator();
    while (it.hasNext() && it.next().getValue() < nowMs) {
      it.remove();
    }
    if (expiryByNonce.size() >= capacity) {
      expiryByNonce.values().removeIf(expiry -> expiry < nowMs);
    }
  }
}
