package io.vte.engine.impl.owner;

import io.vte.engine.impl.Slice;
import io.vte.engine.impl.SliceRouter;
import java.util.List;

/**
 * Routes slices to owners: the rail's local device index picks the {@link LocalContext}, the peer NIC
 * path picks its owner. {@link #submitAll} queues a whole batch and wakes each owner concerned once.
 */
public final class OwnerRouter implements SliceRouter {

  private final LocalContext[] contexts;

  /**
   * @param contexts the local contexts, index-aligned with {@link io.vte.engine.impl.Rail#localDeviceIndex()}
   */
  public OwnerRouter(List<LocalContext> contexts) {
    this.contexts = contexts.toArray(new LocalContext[0]);
  }

  @Override
  public void submit(Slice slice) {
    contexts[slice.rail().localDeviceIndex()].submit(slice);
  }

  @Override
  public void submitAll(List<Slice> slices) {
    OwnerProxy[] touched = new OwnerProxy[4];
    int count = 0;
    for (int i = 0, n = slices.size(); i < n; i++) {
      Slice slice = slices.get(i);
      OwnerProxy proxy = contexts[slice.rail().localDeviceIndex()].ownerOf(slice.rail()).proxy();
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

  private static int indexOf(OwnerProxy[] proxies, int count, OwnerProxy proxy) {
    for (int i = 0; i < count; i++) {
      if (proxies[i] == proxy) {
        return i;
      }
    }
    return -1;
  }
}
