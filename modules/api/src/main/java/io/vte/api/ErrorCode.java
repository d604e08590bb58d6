package io.vte.api;

/**
 * Typed causes of VTE failures. Every {@link VteException} carries one, read with {@link
 * VteException#code()}: {@code if (e instanceof VteException v && v.code() ==
 * ErrorCode.OUT_OF_RANGE) ...}.
 */
public enum ErrorCode {
  /** A bad argument; the message names the value. */
  INVALID_ARGUMENT,
  /** A configuration value is invalid or inconsistent; the message names the field. */
  INVALID_CONFIGURATION,
  /** The local buffer of a request is not registered with the engine. */
  NOT_REGISTERED,
  /** A registration overlaps an existing one. */
  OVERLAPPING_REGISTRATION,
  /** A local or remote range falls outside its registered buffer. */
  OUT_OF_RANGE,
  /** The segment (peer server or logical name) is unknown to the metadata store. */
  SEGMENT_NOT_FOUND,
  /** The peer could not be reached (connect refused, no answer within the deadline). */
  PEER_UNREACHABLE,
  /** The peer rejected the handshake; the message says why. */
  HANDSHAKE_REJECTED,
  /** The peer refused a remote access (bad rkey, range or permission). */
  REMOTE_ACCESS_DENIED,
  /**
   * No rail (local device, remote device) can carry the request: ports down, peer devices inactive,
   * or no key for them. Rails paused after failures report those failures' code instead (e.g.
   * PEER_UNREACHABLE).
   */
  NO_RAIL,
  /** Retries on every rail were exhausted; the message names the last verbs status. */
  TRANSFER_FAILED,
  /** The deadline passed before the request completed. */
  TIMED_OUT,
  /** The request was canceled by the caller. */
  CANCELED,
  /** The engine is closed or closing. */
  ENGINE_CLOSED,
  /** The caller is not authenticated or not allowed. */
  PERMISSION_DENIED,
  /** The metadata store (e.g. etcd) is unavailable. */
  METADATA_UNAVAILABLE,
  /** A message from a peer or store was malformed. */
  PROTOCOL_ERROR,
  /**
   * The requested verbs device or provider is unavailable; the message says why and what to use.
   */
  DEVICE_UNAVAILABLE,
  /** A batch id still has unfinished tasks (explicit batch-id API), or its capacity is exceeded. */
  BATCH_BUSY,
  /** A bug: an invariant did not hold. */
  INTERNAL,
  /**
   * The two ends of a handshake share no control-plane wire version; the message names both ranges.
   */
  VERSION_MISMATCH,
  /**
   * The bytes that landed are not the bytes that were sent: with integrity {@code crc32c}, a
   * slice's CRC32C over the destination did not match the source's, on two rails; the message names
   * the segment, the offset and the rail.
   */
  DATA_CORRUPTED
}
