package io.vte.mooncake;

import java.nio.ByteBuffer;

/**
 * One Mooncake request on the wire: a whole VTE request, or a piece of one longer than {@link
 * MooncakeOptions#getSliceBytes()}, or an engine's slice. Confined to the transport's event loop.
 */
final class Slice {

  final SliceOwner owner;
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
      SliceOwner owner,
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
}
