package io.vte.engine.impl.rail;

import io.vte.engine.impl.shm.SharedMemoryRail;
import java.util.ArrayList;
import java.util.List;

/**
 * Routes slices of the same-host rail to its copier threads and every other slice to the owners.
 */
public final class SharedMemoryRouter implements SliceRouter {

  private final SliceRouter owners;
  private final SharedMemoryRail sharedMemory;

  /**
   * @param owners routes network slices
   * @param sharedMemory copies same-host slices
   */
  public SharedMemoryRouter(SliceRouter owners, SharedMemoryRail sharedMemory) {
    this.owners = owners;
    this.sharedMemory = sharedMemory;
  }

  @Override
  public void submit(Slice slice) {
    if (slice.rail() != null && SharedMemoryRail.carries(slice.rail())) {
      sharedMemory.submit(slice);
    } else {
      owners.submit(slice);
    }
  }

  @Override
  public boolean ownerRunsHere(Rail rail) {
    return owners.ownerRunsHere(rail);
  }

  @Override
  public boolean ownerPolls(Rail rail) {
    return owners.ownerPolls(rail);
  }

  @Override
  public void submitAll(List<Slice> slices) {
    List<Slice> network = null;
    for (int i = 0, n = slices.size(); i < n; i++) {
      Slice slice = slices.get(i);
      if (slice.rail() != null && SharedMemoryRail.carries(slice.rail())) {
        if (network == null) {
          network = new ArrayList<>(slices.subList(0, i));
        }
        sharedMemory.submit(slice);
      } else if (network != null) {
        network.add(slice);
      }
    }
    List<Slice> rest = network == null ? slices : network;
    if (!rest.isEmpty()) {
      owners.submitAll(rest);
    }
  }
}
