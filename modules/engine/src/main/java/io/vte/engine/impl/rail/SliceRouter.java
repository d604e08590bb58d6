package io.vte.engine.impl.rail;

import java.util.List;

/**
 * Hands slices to the owner of their rail: local device -> owner index (stable hash of the peer NIC
 * path mod workers) -> the owner's command queue, with one wake-up per owner per call. Thread-safe.
 */
public interface SliceRouter {

  /**
   * Routes one slice. Its rail, keys and addresses must be set.
   *
   * @param slice the slice
   */
  void submit(Slice slice);

  /**
   * Routes many slices, waking each owner concerned once.
   *
   * @param slices the slices
   */
  void submitAll(List<Slice> slices);

  /**
   * @param rail a rail of this engine
   * @return true when the calling thread is the thread of the owner the rail's slices go to (no
   *     thread to wake for them); false when unknown
   */
  default boolean ownerRunsHere(Rail rail) {
    return false;
  }

  /**
   * @param rail a rail of this engine
   * @return true when the owner the rail's slices go to polls now (a slice queued for it needs no
   *     wake-up); false when unknown
   */
  default boolean ownerPolls(Rail rail) {
    return false;
  }

  /**
   * Routes {@code slices}: one with {@link #submit}, several with {@link #submitAll}.
   *
   * @param slices the slices, possibly none
   */
  default void route(List<Slice> slices) {
    if (slices.size() == 1) {
      submit(slices.get(0));
    } else if (!slices.isEmpty()) {
      submitAll(slices);
    }
  }
}
