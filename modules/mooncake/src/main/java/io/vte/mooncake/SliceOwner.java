package io.vte.mooncake;

import io.vte.api.VteException;

/**
 * Whom a {@link Slice} reports its end to: a {@link MooncakeBatch} (this module's own API) or an
 * engine's slice ({@link HandedSlice}). Called on the transport's event loop.
 */
interface SliceOwner {

  /** The slice's bytes moved. */
  void sliceDone(Slice slice);

  /** The slice failed with a typed cause. */
  void sliceFailed(Slice slice, VteException cause);

  /**
   * Asked before a queued slice is sent.
   *
   * @return true when the slice must not be sent any more (its owner then hears {@link
   *     #sliceDropped}); false by default (a {@link MooncakeBatch} takes the slices of an ended
   *     request off their queue itself)
   */
  default boolean abandoned(Slice slice) {
    return false;
  }

  /** A queued slice was not sent because {@link #abandoned} said so. */
  default void sliceDropped(Slice slice) {}
}
