package io.vte.engine.impl.owner;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Rail;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceRouter;
import java.util.List;

/**
 * Routes slices to owners: the rail's local device index picks the {@link LocalContext}, the peer
 * NIC path picks its owner. {@link #submitAll} queues a whole batch and wakes each owner concerned
 * once.
 */
public final class OwnerRouter implements SliceRouter {

  private final LocalContext[] contexts;

  /**
   * @param contexts the local contexts, index-aligned with {@link
   *     io.vte.engine.impl.rail.Rail#localDeviceIndex()}
   */
  public OwnerRouter(List<LocalContext> contexts) {
    this.contexts = contexts.toArray(new LocalContext[0]);
  }

  /**
   * {@inheritDoc}
   *
   * @throws VteException INVALID_ARGUMENT when the slice has no rail or names no local device of
   *     this engine (nothing is queued)
   */
  @Override
  public void submit(Slice slice) {
    proxyOf(slice).submit(slice);
  }

  /**
   * {@inheritDoc}
   *
   * @throws VteException INVALID_ARGUMENT when a slice has no rail or names no local device of this
   *     engine (nothing of the batch is queued)
   */
  @Override
  public void submitAll(List<Slice> slices) {
    for (int i = 0, n = slices.size(); i < n; i++) {
      contextOf(slices.get(i));
    }
    OwnerProxy[] touched = new OwnerProxy[4];
    int count = 0;
    for (int i = 0, n = slices.size(); i < n; i++) {
      Slice slice = slices.get(i);
      OwnerProxy proxy = proxyOf(slice);
      proxy.offer(slice);
      if (indexOf(touched, count, proxy) < 0) {
        if (count == touched.length) {
          touched = java.util.Arrays.copyOf(touched, count * 2);
        }
        touched[count++] = proxy;
      }
    }
    for (int i = 0; i < count; i++) {
      touched[i].wake();
    }
  }

  @Override
  public boolean ownerRunsHere(Rail rail) {
    OwnerProxy proxy = proxyOrNull(rail);
    return proxy != null && proxy.runsHere();
  }

  @Override
  public boolean ownerPolls(Rail rail) {
    OwnerProxy proxy = proxyOrNull(rail);
    return proxy != null && proxy.polls();
  }

  /** The proxy of a rail's owner, or null when the rail names no local device of this engine. */
  private OwnerProxy proxyOrNull(Rail rail) {
    int device = rail.localDeviceIndex();
    return device >= 0 && device < contexts.length ? contexts[device].ownerOf(rail).proxy() : null;
  }

  /**
   * The one route of a slice: its rail's local device picks the context, whose directory picks the
   * owner.
   */
  private OwnerProxy proxyOf(Slice slice) {
    return contextOf(slice).ownerOf(slice.rail()).proxy();
  }

  private LocalContext contextOf(Slice slice) {
    if (slice.rail() == null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "slice has no rail: " + slice);
    }
    int device = slice.rail().localDeviceIndex();
    if (device < 0 || device >= contexts.length) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "rail names local device index "
              + device
              + ", this engine has "
              + contexts.length
              + " device(s): "
              + slice.rail());
    }
    return contexts[device];
  }

  private static int indexOf(OwnerProxy[] proxies, int count, OwnerProxy proxy) {
    for (int i = 0; i < count; i++) {
      if (proxies[i] == proxy) {
        return i;
      }
    }
    return -1;
  }
}
