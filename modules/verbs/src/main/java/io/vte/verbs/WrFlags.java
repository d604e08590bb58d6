package io.vte.verbs;

/** Send flags of a work request, numbered as {@code enum ibv_send_flags}. */
public final class WrFlags {

  /** No flags: the WR completes silently unless it fails. */
  public static final int NONE = 0;

  /** Fence: wait for prior READs before executing. */
  public static final int FENCE = 1;

  /** Generate a completion on success. */
  public static final int SIGNALED = 1 << 1;

  /** Solicited event. */
  public static final int SOLICITED = 1 << 2;

  /**
   * Payload is copied at post time (up to maxInlineData); the local buffer may be reused at once.
   */
  public static final int INLINE = 1 << 3;

  /**
   * A VTE extension, not an ibverbs flag (bit 7, unused by {@code ibv_send_flags}): check the
   * payload end to end with a CRC32C over the source memory against the destination memory, before
   * the work request completes; a mismatch completes it with {@link WcStatus#INTEGRITY_ERR} and
   * leaves the QP in RTS. Only on a context whose {@link VerbsContext#checksPayloadIntegrity()} is
   * true, and only on RDMA WRITE and READ.
   */
  public static final int INTEGRITY = 1 << 7;

  private WrFlags() {}
}
