package io.vte.engine.impl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.verbs.WcStatus;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RailSelectorTest {

  private static final VteException CAUSE = new VteException(ErrorCode.PEER_UNREACHABLE, "peer gone");
  private static final long HOLD_DOWN = 2_000_000_000L;
  private final AtomicLong clock = new AtomicLong(5_000_000_000L);
  private final RailSelector selector = new RailSelector(List.of("l0", "l1"), 3, HOLD_DOWN, clock::get);

  private static PeerSegment segment(boolean... active) {
    SegmentDescriptor.Builder d = SegmentDescriptor.newBuilder().setName("p").setServerName("p:1");
    BufferDesc.Builder b = BufferDesc.newBuilder().setAddress(4096).setLength(4096);
    for (int i = 0; i < active.length; i++) {
      d.addDevices(DeviceDesc.newBuilder().setName("r" + i).setActive(active[i]));
      b.addRkeys(70 + i);
    }
    return new PeerSegment("p", d.addBuffers(b).build());
  }

  @Test
  void roundRobinCoversEveryPairEvenly() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true, true));
    Map<Rail, Integer> picks = new HashMap<>();
    Set<Integer> locals = new HashSet<>();
    for (int i = 0; i < 400; i++) {
      Rail r = rails.select(0, null);
      picks.merge(r, 1, Integer::sum);
      locals.add(r.localDeviceIndex());
    }
    assertEquals(4, picks.size(), "2 local x 2 peer devices: " + picks);
    picks.values().forEach(n -> assertEquals(100, n));
    assertEquals(Set.of(0, 1), locals);
    Rail a = rails.select(0, null);
    Rail b = rails.select(0, null);
    assertNotEquals(a.localDeviceIndex(), b.localDeviceIndex(), "consecutive picks alternate local devices");
  }

  @Test
  void avoidedRailIsUsedOnlyWhenItIsTheLastOne() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true));
    Rail first = rails.select(0, null);
    for (int i = 0; i < 10; i++) {
      assertNotEquals(first, rails.select(0, first));
    }
    selector.setLocalPortUp(1 - first.localDeviceIndex(), false);
    assertEquals(first, rails.select(0, first), "the only usable rail is returned even when avoided");
  }

  @Test
  void portDownSkipsRailsAtOnceAndPortUpRestoresThem() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true, true));
    selector.setLocalPortUp(0, false);
    for (int i = 0; i < 50; i++) {
      assertEquals(1, rails.select(0, null).localDeviceIndex());
    }
    selector.setLocalPortUp(1, false);
    assertNull(rails.select(0, null));
    selector.setLocalPortUp(0, true);
    assertEquals(0, rails.select(0, null).localDeviceIndex());
  }

  @Test
  void inactivePeerDeviceIsSkipped() {
    RailSelector.PeerRails rails = selector.railsFor(segment(false, true));
    for (int i = 0; i < 50; i++) {
      assertEquals("r1", rails.select(0, null).peerDeviceName());
    }
  }

  @Test
  void repeatedErrorsPauseARailUntilHoldDownThenOneProbeFailureRepausesIt() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true));
    Rail bad = rails.select(0, null);
    int err = WcStatus.RETRY_EXC_ERR.code();
    rails.onFailure(bad, err, CAUSE);
    rails.onFailure(bad, err, CAUSE);
    assertTrue(picks(rails).contains(bad), "two errors do not pause yet");
    assertNull(rails.pausedCause(), "nothing paused, nothing to explain");
    rails.onFailure(bad, err, CAUSE);
    assertTrue(!picks(rails).contains(bad), "three errors pause the rail");
    assertSame(CAUSE, rails.pausedCause(), "the pause says why");
    clock.addAndGet(HOLD_DOWN - 1);
    assertTrue(!picks(rails).contains(bad), "still paused just before the hold-down ends");
    clock.addAndGet(1);
    assertTrue(picks(rails).contains(bad), "probed again after the hold-down");
    assertNull(rails.pausedCause(), "no longer paused");
    rails.onFailure(bad, err, CAUSE);
    assertTrue(!picks(rails).contains(bad), "a failed probe pauses it again at once");
    clock.addAndGet(HOLD_DOWN);
    rails.onSuccess(bad);
    rails.onFailure(bad, err, CAUSE);
    assertTrue(picks(rails).contains(bad), "a success clears the error count");
  }

  @Test
  void nonPenalizingFailuresDoNotPauseAndRailDownPausesAtOnce() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true));
    Rail r = rails.select(0, null);
    for (int i = 0; i < 10; i++) {
      rails.onFailure(r, SliceStatus.ENDPOINT_RETIRED, CAUSE);
      rails.onFailure(r, WcStatus.REM_ACCESS_ERR.code(), CAUSE);
    }
    assertTrue(picks(rails).contains(r));
    rails.onFailure(r, SliceStatus.RAIL_DOWN, CAUSE);
    assertTrue(!picks(rails).contains(r));
  }

  @Test
  void healthSurvivesADescriptorRefresh() {
    PeerSegment v1 = segment(true);
    RailSelector.PeerRails rails = selector.railsFor(v1);
    assertSame(rails, selector.railsFor(v1));
    Rail bad = rails.select(0, null);
    for (int i = 0; i < 3; i++) {
      rails.onFailure(bad, SliceStatus.HANDSHAKE_FAILED, CAUSE);
    }
    RailSelector.PeerRails fresh = selector.railsFor(segment(true));
    assertNotNull(fresh.select(0, null));
    for (int i = 0; i < 20; i++) {
      assertNotEquals(bad, fresh.select(0, null));
    }
  }

  private static Set<Rail> picks(RailSelector.PeerRails rails) {
    Set<Rail> out = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      Rail r = rails.select(0, null);
      if (r != null) {
        out.add(r);
      }
    }
    return out;
  }
}
