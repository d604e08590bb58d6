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

  private WrFlags() {}
}
