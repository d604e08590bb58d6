package io.vte.verbs.soft.impl.requester;

/**
 * Tells a requester when its connection has carried nothing for the device's idle time, so that it
 * closes it (its buffers and socket go; the next post reconnects). Idle time counts from the last
 * change of the send queue's posted count seen at a timer check, so posting pays nothing for it.
 * NIC thread only.
 */
public final class IdleWatch {

  /** Returned by {@link #check} when the connection should close now. */
  public static final long CLOSE_NOW = Long.MIN_VALUE;

  /** The posted count at the last check. */
  private long seenPosted = -1;

  /** When a check first saw {@link #seenPosted}, or the connection was last busy. */
  private long since;

  /**
   * @param now the time of the check
   * @param posted the send queue's posted count
   * @param busy whether the connection still carries something (unanswered work, a hold, bytes
   *     waiting for the socket)
   * @param idleNanos the device's idle time, 0 for never
   * @param open whether there is a connection to close
   * @return {@link #CLOSE_NOW}, the time of the next check it needs, or {@code Long.MAX_VALUE}
   */
  public long check(long now, long posted, boolean busy, long idleNanos, boolean open) {
    if (posted != seenPosted) {
      seenPosted = posted;
      since = now;
    }
    if (idleNanos == 0 || !open) {
      return Long.MAX_VALUE;
    }
    if (busy) {
      since = now;
      return Long.MAX_VALUE;
    }
    return now - since >= idleNanos ? CLOSE_NOW : since + idleNanos;
  }
}
