package io.vte.engine.impl.rail;

import java.util.Arrays;
import java.util.List;

/**
 * Hands slices to the carriers of the routes they were given: the one routing step, with no
 * decision left (their {@link Routes} made it). Many slices wake each carrier concerned once.
 */
public final class Routing {

  private Routing() {}

  /**
   * Hands one slice to its route's carrier and wakes it.
   *
   * @param slice a slice with a route
   */
  public static void submit(Slice slice) {
    Carrier carrier = slice.route().carrier();
    carrier.offer(slice);
    carrier.wake();
  }

  /**
   * Hands slices to their routes' carriers, waking each carrier once.
   *
   * @param slices slices with a route each, possibly none
   */
  public static void route(List<Slice> slices) {
    route(slices, null);
  }

  /**
   * Hands slices to the given carriers, waking each carrier once.
   *
   * @param slices the slices, possibly none
   * @param carriers the carrier of each slice, by index; null: each slice's route's
   */
  public static void route(List<Slice> slices, Carrier[] carriers) {
    int n = slices.size();
    if (n == 0) {
      return;
    }
    if (n == 1) {
      Carrier carrier = carriers != null ? carriers[0] : slices.get(0).route().carrier();
      carrier.offer(slices.get(0));
      carrier.wake();
      return;
    }
    Carrier[] touched = new Carrier[4];
    int count = 0;
    for (int i = 0; i < n; i++) {
      Slice slice = slices.get(i);
      Carrier carrier = carriers != null ? carriers[i] : slice.route().carrier();
      carrier.offer(slice);
      if (!contains(touched, count, carrier)) {
        if (count == touched.length) {
          touched = Arrays.copyOf(touched, count * 2);
        }
        touched[count++] = carrier;
      }
    }
    for (int i = 0; i < count; i++) {
      touched[i].wake();
    }
  }

  private static boolean contains(Carrier[] carriers, int count, Carrier carrier) {
    for (int i = 0; i < count; i++) {
      if (carriers[i] == carrier) {
        return true;
      }
    }
    return false;
  }
}
