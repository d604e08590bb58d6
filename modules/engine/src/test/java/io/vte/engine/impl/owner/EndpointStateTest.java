package io.vte.engine.impl.owner;

import static io.vte.engine.impl.owner.endpoint.EndpointState.CONNECTED;
import static io.vte.engine.impl.owner.endpoint.EndpointState.CONNECTING;
import static io.vte.engine.impl.owner.endpoint.EndpointState.FAILED;
import static io.vte.engine.impl.owner.endpoint.EndpointState.NEW;
import static io.vte.engine.impl.owner.endpoint.EndpointState.RETIRED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointKey;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class EndpointStateTest {

  /** The lifecycle as ARCHITECTURE.md describes it: every allowed move, and only those. */
  private static final Map<EndpointState, Set<EndpointState>> ALLOWED =
      Map.of(
          NEW, EnumSet.of(CONNECTING, CONNECTED, FAILED, RETIRED),
          CONNECTING, EnumSet.of(CONNECTED, FAILED, RETIRED),
          CONNECTED, EnumSet.of(RETIRED),
          RETIRED, EnumSet.noneOf(EndpointState.class),
          FAILED, EnumSet.noneOf(EndpointState.class));

  @Test
  void transitionTableIsExactlyTheLifecycle() {
    for (EndpointState from : EndpointState.values()) {
      for (EndpointState to : EndpointState.values()) {
        assertEquals(ALLOWED.get(from).contains(to), from.canMoveTo(to), from + " -> " + to);
      }
    }
  }

  /** The transition methods by the state they move to (nothing moves an endpoint back to NEW). */
  private static final Map<EndpointState, Consumer<Endpoint>> MOVES =
      Map.of(
          CONNECTING,
          Endpoint::beginConnecting,
          CONNECTED,
          ep -> ep.connectedActive(7, 1),
          FAILED,
          Endpoint::fail,
          RETIRED,
          ep -> ep.retire(SliceStatus.ENDPOINT_RETIRED, null));

  @Test
  void endpointFollowsAllowedMovesAndRefusesTheOthersByName() {
    for (EndpointState from : EndpointState.values()) {
      for (Map.Entry<EndpointState, Consumer<Endpoint>> move : MOVES.entrySet()) {
        EndpointState to = move.getKey();
        Endpoint ep = endpointIn(from);
        if (ALLOWED.get(from).contains(to)) {
          move.getValue().accept(ep);
          assertEquals(to, ep.state());
        } else {
          IllegalStateException e =
              assertThrows(
                  IllegalStateException.class,
                  () -> move.getValue().accept(ep),
                  from + " -> " + to);
          assertTrue(
              e.getMessage().contains("from " + from + " to " + to)
                  && e.getMessage().contains("p:1@d0"),
              e.getMessage());
          assertEquals(from, ep.state(), "a refused move changes nothing");
        }
      }
    }
  }

  /** An endpoint brought to {@code state} along allowed moves. */
  private static Endpoint endpointIn(EndpointState state) {
    Endpoint ep = new Endpoint(EndpointKey.to(NicPath.of("p:1", "d0")), 1, 0, 0);
    switch (state) {
      case NEW -> {}
      case CONNECTING -> ep.beginConnecting();
      case CONNECTED -> ep.connectedActive(7, 1);
      case RETIRED -> {
        ep.connectedActive(7, 1);
        ep.retire(SliceStatus.ENDPOINT_RETIRED, null);
      }
      case FAILED -> ep.fail();
    }
    assertEquals(state, ep.state());
    return ep;
  }
}
