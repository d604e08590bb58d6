package io.vte.engine.spi;

import io.vte.api.VteException;
import java.nio.ByteBuffer;

/**
 * One piece of a transfer request to a {@link PeerTransport}'s segment, as the engine hands it
 * over: which way, which bytes, where, and how to report its end (exactly once). Thread-safe.
 */
public interface PeerSlice {

  /**
   * @return the name of the segment it goes to, as opened ({@link PeerTransport#open})
   */
  String segmentName();

  /**
   * @return true for a WRITE (local to remote), false for a READ
   */
  boolean isWrite();

  /**
   * @return the slice's local bytes: position 0, limit its length (direct, registered memory)
   */
  ByteBuffer local();

  /**
   * @return the remote address of its first byte
   */
  long remoteAddress();

  /**
   * @return its length in bytes, positive
   */
  int length();

  /**
   * @return true once its request was cancelled, timed out or failed: a slice not yet sent should
   *     be {@link #dropped} instead
   */
  boolean isAbandoned();

  /** Its bytes were moved (a WRITE: acknowledged when the protocol can; a READ: all received). */
  void completed();

  /**
   * It failed. REMOTE_ACCESS_DENIED, PROTOCOL_ERROR and OUT_OF_RANGE end the request at once with
   * this cause; other codes are retried (up to the engine's retry count) before they do.
   *
   * @param cause the typed cause, naming the slice
   */
  void failed(VteException cause);

  /** It was not sent because {@link #isAbandoned} said so. */
  void dropped();
}
