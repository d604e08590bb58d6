package io.vte.mooncake;

import io.vte.api.VteException;
import java.nio.ByteBuffer;

/**
 * One Mooncake request on the wire: a whole VTE request, or a piece of one longer than {@link
 * MooncakeOptions#getSliceBytes()}, or an engine's slice. Confined to the transport's event loop.
 */
final class Slice {

  final Owner owner;
  final int request;
  final boolean write;
  final ByteBuffer memory;
  final int memoryOffset;
  final long remoteAddress;
  final int length;
  final boolean v2;
  final LanePool pool;

  /** The lane carrying it, while in flight. */
  Lane lane;

  /** Set once it completed or failed. */
  boolean done;

  Slice(
      Owner owner,
      int request,
      boolean write,
      ByteBuffer memory,
      int memoryOffset,
      long remoteAddress,
      int length,
      boolean v2,
      LanePool pool) {
    this.owner = owner;
    this.request = request;
    this.write = write;
    this.memory = memory;
    this.memoryOffset = memoryOffset;
    this.remoteAddress = remoteAddress;
    this.length = length;
    this.v2 = v2;
    this.pool = pool;
  }

  String describe() {
    return (write ? "WRITE" : "READ")
        + " of "
        + length
        + " bytes at 0x"
        + Long.toHexString(remoteAddress)
        + " on "
        + pool.peer()
        + " (v"
        + (v2 ? 2 : 1)
        + ")";
  }

  /**
   * Whom a {@link Slice} reports its end to: a {@link MooncakeBatch} (this module's own API) or an
   * engine's slice. Called on the transport's event loop.
   */
  interface Owner {

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
}
