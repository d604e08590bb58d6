package io.vte.engine.impl.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.PeerRails.RailRoute;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.engine.impl.segment.SegmentCache;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.DeviceState;
import io.vte.handshake.proto.DeviceStates;
import io.vte.handshake.proto.SegmentDescriptor;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Pushed device states in rail selection: a device the peer calls down gets no slice until the peer
 * calls it back, whatever time passes; then one slice probes it before the others use it; older
 * messages are ignored; a broken stream's hold-downs end (not a shutdown's).
 */
class PeerDeviceStatesTest {

  private static final long HOLD_DOWN = 2_000_000_000L;
  private static final int SLICE = 64 << 10;
  private static final String PEER = "p:1";

  private final AtomicLong clock = new AtomicLong(5_000_000_000L);
  private final AtomicInteger lookups = new AtomicInteger();
  private final List<NicPath> retired = new CopyOnWriteArrayList<>();
  private final RailSelector selector =
      new RailSelector(
          List.of("l0"),
          List.of(""),
          3,
          HOLD_DOWN,
          HOLD_DOWN,
          clock::get,
          RailAffinity.NONE,
          rail -> slice -> {});
  private final PeerDeviceStates states =
      new PeerDeviceStates(
          new SegmentCache(this::lookup, this::lookup),
          selector,
          (path, cause) -> retired.add(path));
  private final PeerSegment segment = segment();
  private final PeerRails rails = selector.railsFor(segment);

  private Future<SegmentDescriptor> lookup(String name) {
    lookups.incrementAndGet();
    return Future.succeededFuture(segment.descriptor());
  }

  private static PeerSegment segment() {
    SegmentDescriptor.Builder d =
        SegmentDescriptor.newBuilder().setName(PEER).setServerName(PEER).setVersion(1);
    BufferDesc.Builder b = BufferDesc.newBuilder().setAddress(4096).setLength(4096);
    for (int i = 0; i < 2; i++) {
      d.addDevices(DeviceDesc.newBuilder().setName("r" + i).setActive(true));
      b.addRkeys(70 + i);
    }
    return new PeerSegment(PEER, d.addBuffers(b).build());
  }

  private static DeviceStates message(
      long incarnation, long sequence, boolean shuttingDown, boolean... active) {
    DeviceStates.Builder m =
        DeviceStates.newBuilder()
            .setServerName(PEER)
            .setIncarnation(incarnation)
            .setSequence(sequence)
            .setShuttingDown(shuttingDown);
    for (int i = 0; i < active.length; i++) {
      m.addDevices(
          DeviceState.newBuilder()
              .setName("r" + i)
              .setActive(active[i])
              .setReason(active[i] ? "" : "port down"));
    }
    return m.build();
  }

  /** Picks {@code n} slices without ending them; counts them per peer device. */
  private Map<String, Integer> picks(int n, List<RailRoute> taken) {
    Map<String, Integer> count = new ConcurrentHashMap<>();
    for (int i = 0; i < n; i++) {
      RailRoute r = rails.select(0, null, SLICE);
      taken.add(r);
      count.merge(r.rail().peerDeviceName(), 1, Integer::sum);
    }
    return count;
  }

  @Test
  void aDeviceCalledDownGetsNoSliceUntilCalledBackThenOneProbeGoesFirst() {
    states.onPushed(PEER, message(9, 1, false, true, true));
    states.onPushed(PEER, message(9, 2, false, false, true));
    assertEquals(List.of(NicPath.of(PEER, "r0")), retired, "its endpoints retire at once");
    List<RailRoute> taken = new CopyOnWriteArrayList<>();
    assertEquals(Map.of("r1", 50), picks(50, taken));
    clock.addAndGet(100 * HOLD_DOWN); // no hold-down period ends the peer's word
    assertEquals(Map.of("r1", 50), picks(50, taken));
    assertEquals(1, selector.peerDevicesHeldByPeer());

    states.onPushed(PEER, message(9, 3, false, true, true));
    RailRoute probe = rails.select(0, null, SLICE);
    assertEquals("r0", probe.rail().peerDeviceName(), "the device back is probed first");
    assertEquals(Map.of("r1", 20), picks(20, taken), "the others wait for the probe's outcome");
    probe.onSuccess();
    Map<String, Integer> after = picks(40, taken);
    assertTrue(after.getOrDefault("r0", 0) >= 10, "the probed device is used again: " + after);
    assertEquals(0, selector.peerDevicesHeldByPeer());
    assertEquals(3, states.pushedChanges());
    assertEquals(1, states.pushedHoldDowns());
  }

  @Test
  void olderMessagesAreIgnoredAndANewIncarnationStartsOver() {
    states.onPushed(PEER, message(9, 5, false, true, false));
    states.onPushed(PEER, message(9, 5, false, true, false)); // a heartbeat: not stale
    states.onPushed(PEER, message(9, 4, false, true, true)); // late: r1 must stay down
    states.onPushed(PEER, message(8, 50, false, true, true)); // a dead incarnation
    assertEquals(2, states.staleMessages());
    assertEquals(1, states.pushedChanges());
    assertEquals(Map.of("r0", 30), picks(30, new CopyOnWriteArrayList<>()));
    states.onPushed(PEER, message(10, 1, false, true, true)); // the peer restarted
    RailRoute probe = rails.select(0, null, SLICE);
    assertEquals("r1", probe.rail().peerDeviceName());
    assertEquals(2, states.pushedChanges());
  }

  @Test
  void aBrokenStreamEndsItsHoldDownsButAShutdownKeepsThem() {
    states.onPushed(PEER, message(9, 1, false, false, true));
    states.onStreamLost(PEER);
    assertEquals(0, selector.peerDevicesHeldByPeer(), "no device kept out by a stream now gone");
    assertEquals(
        "r0", rails.select(0, null, SLICE).rail().peerDeviceName(), "probed after the loss");

    states.onPushed(PEER, message(9, 2, true, true, true));
    assertEquals(2, selector.peerDevicesHeldByPeer(), "shutting down: every device is out");
    states.onStreamLost(PEER);
    assertEquals(2, selector.peerDevicesHeldByPeer(), "a peer that shut down stays out");
  }

  @Test
  void aFailureAsksForADescriptorOnlyWhileNoStreamIsLive() {
    Future<?> asked = states.ask(segment);
    assertTrue(asked.isComplete());
    assertEquals(1, lookups.get(), "no stream yet: a fresh descriptor is read");
    states.onPushed(PEER, message(9, 1, false, true, true));
    assertTrue(states.ask(segment).isComplete());
    assertEquals(1, lookups.get(), "the stream tells of every change: nothing to ask");
    states.onStreamLost(PEER);
    states.ask(segment);
    assertEquals(2, lookups.get());
  }

  @Test
  void aFailedProbeKeepsTheDeviceOutAndAnotherProbeFollowsTheHoldDown() {
    states.onPushed(PEER, message(9, 1, false, false, true));
    states.onPushed(PEER, message(9, 2, false, true, true));
    RailRoute probe = rails.select(0, null, SLICE);
    assertEquals("r0", probe.rail().peerDeviceName());
    probe.onFailure(
        io.vte.verbs.WcStatus.RETRY_EXC_ERR.code(),
        new VteException(io.vte.api.ErrorCode.TRANSFER_FAILED, "probe failed"));
    assertEquals(Map.of("r1", 20), picks(20, new CopyOnWriteArrayList<>()));
    clock.addAndGet(HOLD_DOWN + 1);
    assertNotEquals(
        "r1",
        rails.select(0, null, SLICE).rail().peerDeviceName(),
        "after the hold-down the device is probed again");
  }
}
