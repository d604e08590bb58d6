package io.vte.engine.impl.owner;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.Carrier;
import io.vte.engine.impl.rail.Rail;
import io.vte.engine.impl.rail.Routing;
import io.vte.engine.impl.rail.Slice;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a verbs rail finds its owner, decided in one place: the rail's local device index picks the
 * {@link LocalContext}, whose {@link OwnerDirectory} picks the owner by the peer NIC path. The
 * answer is the owner's {@link Carrier}, which rail selection asks once per rail it builds and
 * keeps in the rail's route; so a slice's owner is never looked up again. Thread-safe.
 */
public final class OwnerRouter {

  private final LocalContext[] contexts;

  /** One carrier per owner, so that a batch wakes each owner once. */
  private final Map<OwnerProxy, Carrier> carriers = new ConcurrentHashMap<>();

  /**
   * @param contexts the local contexts, index-aligned with {@link Rail#localDeviceIndex()}
   */
  public OwnerRouter(List<LocalContext> contexts) {
    this.contexts = contexts.toArray(new LocalContext[0]);
  }

  /**
   * @param rail a rail of this engine
   * @return the carrier of the rail's slices: the queue of the owner of its endpoint
   * @throws VteException INVALID_ARGUMENT when the rail is null or names no local device of this
   *     engine
   */
  public Carrier carrierOf(Rail rail) {
    if (rail == null) {
      throw new VteException(ErrorCode.INVALID_ARGUMENT, "no rail to route on");
    }
    int device = rail.localDeviceIndex();
    if (device < 0 || device >= contexts.length) {
      throw new VteException(
          ErrorCode.INVALID_ARGUMENT,
          "rail names local device index "
              + device
              + ", this engine has "
              + contexts.length
              + " device(s): "
              + rail);
    }
    return carriers.computeIfAbsent(contexts[device].ownerOf(rail).proxy(), OwnerCarrier::new);
  }

  /**
   * Routes one slice that has a rail but no route (the owner layer driven on its own) to its rail's
   * owner and wakes it.
   *
   * @param slice the slice
   * @throws VteException INVALID_ARGUMENT when the slice has no rail or names no local device of
   *     this engine (nothing is queued)
   */
  public void submit(Slice slice) {
    Carrier carrier = carrierOf(slice.rail());
    carrier.offer(slice);
    carrier.wake();
  }

  /**
   * Routes slices that have a rail but no route to their owners, waking each owner once.
   *
   * @param slices the slices
   * @throws VteException INVALID_ARGUMENT when a slice has no rail or names no local device of this
   *     engine (nothing of the batch is queued)
   */
  public void submitAll(List<Slice> slices) {
    Carrier[] each = new Carrier[slices.size()];
    for (int i = 0; i < each.length; i++) {
      each[i] = carrierOf(slices.get(i).rail());
    }
    Routing.route(slices, each);
  }

  /** An owner's queue as a carrier: {@link OwnerProxy}'s own methods. */
  private record OwnerCarrier(OwnerProxy proxy) implements Carrier {

    @Override
    public void offer(Slice slice) {
      proxy.offer(slice);
    }

    @Override
    public void wake() {
      proxy.wake();
    }

    @Override
    public boolean runsHere() {
      return proxy.runsHere();
    }

    @Override
    public boolean polls() {
      return proxy.polls();
    }
  }
}
