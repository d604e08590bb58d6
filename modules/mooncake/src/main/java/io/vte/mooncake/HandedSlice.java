package io.vte.mooncake;

import io.vte.api.VteException;
import io.vte.engine.spi.PeerSlice;

/** Reports the end of a {@link Slice} an engine handed over to the engine's slice. */
final class HandedSlice implements SliceOwner {

  private final PeerSlice handed;

  HandedSlice(PeerSlice handed) {
    this.handed = handed;
  }

  @Override
  public void sliceDone(Slice slice) {
    handed.completed();
  }

  @Override
  public void sliceFailed(Slice slice, VteException cause) {
    handed.failed(cause);
  }

  @Override
  public boolean abandoned(Slice slice) {
    return handed.isAbandoned();
  }

  @Override
  public void sliceDropped(Slice slice) {
    handed.dropped();
  }
}
