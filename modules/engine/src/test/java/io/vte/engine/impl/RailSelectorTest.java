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
  private final RailSelector selector = new RailSelector(List.of("l0", "l1"), 3, HOLD_DOWN, HOLD_DOWN, clock::get);

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
    int err = WcStatus.GENERAL_ERR.code();
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
    assertEquals(1, count(rails, bad, 20), "one probe after the hold-down, the others keep away");
    rails.onFailure(bad, err, CAUSE);
    assertTrue(!picks(rails).contains(bad), "a failed probe pauses it again at once");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, bad, 20), "probed again");
    rails.onSuccess(bad);
    assertEquals(10, count(rails, bad, 20), "a successful probe ends the hold-down");
    rails.onFailure(bad, err, CAUSE);
    assertTrue(picks(rails).contains(bad), "a success clears the error count");
  }

  @Test
  void retryExceededHoldsDownEveryRailToThatPeerDeviceAtOnce() {
    PeerSegment seg = segment(true, true, true);
    RailSelector.PeerRails rails = selector.railsFor(seg);
    Rail bad = railTo(rails, 0, "r1");
    rails.onFailure(bad, WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    for (int i = 0; i < 60; i++) {
      Rail r = rails.select(0, bad);
      assertNotEquals("r1", r.peerDeviceName(), "no rail from any local device leads to the dead r1: " + r);
    }
    assertSame(CAUSE, rails.pausedCause());
    RailSelector.PeerRails refreshed = selector.railsFor(segment(true, true, true));
    assertEquals(0, count(refreshed, "r1", 60), "the hold-down survives a descriptor refresh");

    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, "r1", 60), "the hold-down ends with a single probe");
    Rail probe = lastPick;
    rails.onFailure(probe, WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    assertEquals(0, count(rails, "r1", 60), "a failed probe holds the device down again");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, "r1", 60));
    rails.onSuccess(lastPick);
    assertEquals(20, count(rails, "r1", 60), "a successful probe ends the hold-down of every rail to r1");
  }

  @Test
  void peerDeviceDownAnswerHoldsDownEveryRailToThatDevice() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true, true));
    rails.onFailure(railTo(rails, 1, "r0"), SliceStatus.PEER_DEVICE_DOWN, CAUSE);
    assertEquals(0, count(rails, "r0", 40), "both local devices stay away from r0");
    assertEquals(40, count(rails, "r1", 40));
  }

  @Test
  void retryExceededWithTheLocalPortDownBlamesTheLocalDevice() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true, true));
    Rail rail = railTo(rails, 0, "r0");
    selector.setLocalPortUp(0, false);
    rails.onFailure(rail, WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    for (int i = 0; i < 40; i++) {
      assertEquals(1, rails.select(0, null).localDeviceIndex(), "local device 0 is down");
    }
    assertEquals(20, count(rails, "r0", 40), "r0 is not held down: the local port was to blame");
    selector.setLocalPortUp(0, true);
    assertTrue(picks(rails).contains(rail), "port up: the rail is back at once");
  }

  @Test
  void whenEveryPeerDeviceIsHeldDownTheOneHeldLongestIsProbedRatherThanFailing() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true, true));
    rails.onFailure(railTo(rails, 0, "r1"), WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    clock.addAndGet(10);
    rails.onFailure(railTo(rails, 0, "r0"), WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    assertEquals(20, count(rails, "r1", 20), "r1 was held down first: it is the one tried");
    rails.onSuccess(lastPick);
    assertEquals(0, count(rails, "r0", 20), "r0 stays held down");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, "r0", 20), "r0's hold-down ends with one probe; r1's ended with its success");
  }

  @Test
  void aRailProbedBecauseNothingElseWasLeftIsGivenUpAfterRepeatedFailures() {
    RailSelector.PeerRails rails = selector.railsFor(segment(true));
    selector.setLocalPortUp(1, false);
    Rail only = rails.select(0, null);
    for (int i = 0; i < 3; i++) {
      assertEquals(only, rails.select(0, only), "attempt " + i);
      rails.onFailure(only, WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    }
    assertNull(rails.select(0, null), "every rail is held down by its own failures: no rail");
    assertSame(CAUSE, rails.pausedCause());
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

  private Rail lastPick;

  /** Selects {@code n} times, counting the picks of {@code rail}. */
  private int count(RailSelector.PeerRails rails, Rail rail, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
      if (rail.equals(rails.select(0, null))) {
        c++;
      }
    }
    return c;
  }

  /** Selects {@code n} times, counting the picks leading to peer device {@code peer} (the last one in lastPick). */
  private int count(RailSelector.PeerRails rails, String peer, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
      Rail r = rails.select(0, null);
      if (r != null && r.peerDeviceName().equals(peer)) {
        c++;
        lastPick = r;
      }
    }
    return c;
  }

  private static Rail railTo(RailSelector.PeerRails rails, int local, String peer) {
    for (int i = 0; i < 100; i++) {
      Rail r = rails.select(0, null);
      if (r.localDeviceIndex() == local && r.peerDeviceName().equals(peer)) {
        return r;
      }
    }
    throw new AssertionError("no rail l" + local + "->" + peer);
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
