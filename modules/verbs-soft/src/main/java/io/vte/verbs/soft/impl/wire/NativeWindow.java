package io.vte.verbs.soft.impl.wire;

import io.vte.verbs.DirectMemory;
import java.nio.ByteBuffer;

/**
 * One reusable ByteBuffer view of native memory for socket reads and writes: every frame re-points
 * it with {@link DirectMemory#retarget}, so steady-state frame I/O allocates nothing. One per
 * connection direction; NIC thread (or the lock holder of the connection's handler) only.
 */
public final class NativeWindow {

  private ByteBuffer view;

  /**
   * @param address start of the bytes, non-zero
   * @param length number of bytes
   * @return the view, with position 0 and limit {@code length}, over exactly that range
   */
  public ByteBuffer window(long address, int length) {
    if (view == null) {
      view = DirectMemory.wrap(address, length);
    } else {
      DirectMemory.retarget(view, address, length);
    }
    return view;
  }
}
