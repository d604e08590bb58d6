package io.vte.engine.impl.submit;

import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import java.util.List;

/**
 * Cuts a request into slices of at most {@code sliceSize} bytes. A request lies inside one local
 * and one remote buffer (validated before), so no slice crosses a buffer boundary.
 */
public final class Slicer {

  private final int sliceSize;

  /**
   * @param sliceSize bytes per slice, positive
   */
  public Slicer(int sliceSize) {
    if (sliceSize <= 0) {
      throw new IllegalArgumentException("sliceSize must be > 0, got " + sliceSize);
    }
    this.sliceSize = sliceSize;
  }

  /**
   * @param length request length, positive
   * @return number of slices it is cut into
   */
  public int count(long length) {
    long n = (length + sliceSize - 1) / sliceSize;
    if (n > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("request of " + length + " bytes has too many slices");
    }
    return (int) n;
  }

  /**
   * Appends the slices of one request to {@code out}, in address order.
   *
   * @param callback the request
   * @param opcode work-request opcode
   * @param localAddress first local byte
   * @param remoteAddress first remote byte
   * @param length bytes, positive
   * @param out receives the slices
   */
  public void cut(
      SliceCallback callback,
      int opcode,
      long localAddress,
      long remoteAddress,
      long length,
      List<Slice> out) {
    int n = count(length);
    for (int i = 0; i < n; i++) {
      long offset = (long) i * sliceSize;
      int len = (int) Math.min(sliceSize, length - offset);
      out.add(new Slice(callback, i, opcode, localAddress + offset, remoteAddress + offset, len));
    }
  }
}
