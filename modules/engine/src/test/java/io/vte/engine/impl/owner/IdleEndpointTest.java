package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.engine.impl.owner.OwnerHarness.Recorder;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.verbs.WcStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Endpoints no slice used for {@code idleEndpoint} are retired by their owner (fake clock). */
class IdleEndpointTest {

  private static final Duration IDLE = Duration.ofSeconds(1);

  /**
   * An owner retiring endpoints unused for {@code idle}; its QP timeout (1.07 s) keeps work that
   * waits a few periods within RC's failure time, so only the idle rule retires endpoints here.
   */
  private static OwnerHarness harness(Duration idle) {
    return OwnerHarness.accepting(
        OwnerConfig.from(
                OwnerTestConfig.options()
                    .setIdleEndpoint(idle)
                    .setQpTimeout(Duration.ofNanos(4096L << 18)))
            .withHandshakeDeadline(Duration.ofSeconds(5)));
  }

  /** Submits {@code n} slices to {@code peer} and completes them all; @return the endpoint. */
  private static Endpoint use(OwnerHarness h, Recorder rec, String peer, int n) {
    List<Slice> slices = h.submit(rec, peer, n);
    h.run();
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    for (Slice s : slices) {
      assertEquals(SliceStatus.OK, rec.status.get(s));
    }
    return h.owner.endpoint(peer + "@d0");
  }

  @Test
  void anUnusedEndpointIsRetiredAndTheNextTransferReconnects() {
    OwnerHarness h = harness(IDLE);
    Recorder rec = new Recorder();
    Endpoint first = use(h, rec, "b:1", 2);
    assertEquals(1, h.channel.calls.size());
    h.clock.advance(IDLE.minusMillis(1));
    h.run();
    assertSame(first, h.owner.endpoint("b:1@d0"), "kept until it was unused for idleEndpoint");
    assertEquals(1, h.device.liveQps().size());
    h.clock.advance(IDLE.dividedBy(2));
    h.run();
    assertEquals(EndpointState.RETIRED, first.state());
    assertNull(h.owner.endpoint("b:1@d0"), "its store slot is free");
    assertEquals(0, h.owner.endpointCount());
    assertTrue(h.device.liveQps().isEmpty(), "its QPs are destroyed");
    assertTrue(h.directory.liveQpNumbers().isEmpty());
    assertEquals(1, h.owner.metrics().endpointsIdleRetired());
    Endpoint second = use(h, rec, "b:1", 3);
    assertNotNull(second);
    assertNotSame(first, second);
    assertEquals(2, h.channel.calls.size(), "the next transfer connected again");
    assertEquals(5, rec.count(SliceStatus.OK));
    assertEquals(0, rec.duplicates);
  }

  @Test
  void onlyIdleEndpointsUnusedForTheWholePeriodAreRetired() {
    OwnerHarness h = harness(IDLE);
    Recorder rec = new Recorder();
    Endpoint unused = use(h, rec, "b:1", 1);
    Endpoint usedAgain = use(h, rec, "c:1", 1);
    List<Slice> inFlight = h.submit(rec, "d:1", 2);
    h.run();
    Endpoint busy = h.owner.endpoint("d:1@d0");
    h.clock.advance(IDLE.multipliedBy(8).dividedBy(10));
    use(h, rec, "c:1", 1);
    h.clock.advance(IDLE.dividedBy(2));
    h.run();
    assertEquals(EndpointState.RETIRED, unused.state());
    assertSame(usedAgain, h.owner.endpoint("c:1@d0"), "used 0.5 s ago: kept");
    assertSame(busy, h.owner.endpoint("d:1@d0"), "work in flight: never retired");
    assertEquals(EndpointState.CONNECTED, busy.state());
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    for (Slice s : inFlight) {
      assertEquals(SliceStatus.OK, rec.status.get(s));
    }
    assertEquals(1, h.owner.metrics().endpointsIdleRetired());
    // Both are unused from now: retired within 1.25 periods.
    h.clock.advance(IDLE.multipliedBy(5).dividedBy(4));
    h.run();
    assertEquals(0, h.owner.endpointCount());
    assertEquals(3, h.owner.metrics().endpointsIdleRetired());
    assertTrue(h.device.liveQps().isEmpty());
  }

  @Test
  void zeroNeverRetires() {
    OwnerHarness h = harness(Duration.ZERO);
    Recorder rec = new Recorder();
    Endpoint ep = use(h, rec, "b:1", 1);
    h.clock.advance(Duration.ofDays(1));
    h.run();
    assertSame(ep, h.owner.endpoint("b:1@d0"));
    assertEquals(EndpointState.CONNECTED, ep.state());
    assertEquals(0, h.owner.metrics().endpointsIdleRetired());
  }
}
