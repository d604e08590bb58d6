package io.vte.engine.impl.rail;

/**
 * What moves the slices of a {@link Route}: the owner of a verbs rail's endpoint (its queue,
 * drained on its event loop), or the same-host rail's copier threads. Fixed per route, so a slice's
 * carrier is known the moment its route is chosen. Thread-safe.
 */
public interface Carrier {

  /**
   * Queues a slice without waking the carrier: {@link #wake} follows once per batch.
   *
   * @param slice a slice assigned a route of this carrier
   */
  void offer(Slice slice);

  /**
   * Wakes the carrier for the slices offered so far (a no-op when it is awake; by default, for a
   * carrier whose threads wait on their queue itself).
   */
  default void wake() {}

  /**
   * @return true when the calling thread is the carrier's own (a slice queued for it is taken by
   *     the caller's next cycle, with no thread woken); false by default
   */
  default boolean runsHere() {
    return false;
  }

  /**
   * @return true when the carrier polls now (a slice queued for it needs no wake-up); false by
   *     default
   */
  default boolean polls() {
    return false;
  }
}
