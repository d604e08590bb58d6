package io.vte.engine.impl.rail;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.rail.PeerRails.RailRoute;
import io.vte.engine.impl.segment.PeerSegment;
import io.vte.handshake.proto.BufferDesc;
import io.vte.handshake.proto.DeviceDesc;
import io.vte.handshake.proto.SegmentDescriptor;
import io.vte.verbs.Gid;
import io.vte.verbs.WcStatus;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class RailSelectorTest {

  private static final VteException CAUSE =
      new VteException(ErrorCode.PEER_UNREACHABLE, "peer gone");
  private static final long HOLD_DOWN = 2_000_000_000L;
  private static final int SLICE = 64 << 10;
  private final AtomicLong clock = new AtomicLong(5_000_000_000L);

  /** Whose carrier runs on the calling thread, and whose polls, as the selector's carriers say. */
  private volatile Predicate<Rail> runsHere = r -> false;

  private volatile Predicate<Rail> polls = r -> false;
  private final RailSelector selector = selector(List.of("", ""), RailAffinity.NONE);

  /**
   * A selector of local devices l0, l1, ... whose carriers answer as {@link #runsHere}, {@link
   * #polls} say.
   */
  private RailSelector selector(List<String> transports, RailAffinity affinity) {
    List<String> devices = new ArrayList<>();
    for (int i = 0; i < transports.size(); i++) {
      devices.add("l" + i);
    }
    return selector(devices, transports, affinity);
  }

  private RailSelector selector(
      List<String> devices, List<String> transports, RailAffinity affinity) {
    return new RailSelector(
        devices,
        transports,
        3,
        HOLD_DOWN,
        HOLD_DOWN,
        clock::get,
        affinity,
        rail ->
            new Carrier() {
              @Override
              public void offer(Slice slice) {
                throw new AssertionError("rail choice only: nothing is routed");
              }

              @Override
              public boolean runsHere() {
                return runsHere.test(rail);
              }

              @Override
              public boolean polls() {
                return polls.test(rail);
              }
            });
  }

  private static PeerSegment segment(boolean... active) {
    return segment(0, active);
  }

  private static PeerSegment segment(long version, boolean... active) {
    SegmentDescriptor.Builder d =
        SegmentDescriptor.newBuilder().setName("p").setServerName("p:1").setVersion(version);
    BufferDesc.Builder b = BufferDesc.newBuilder().setAddress(4096).setLength(4096);
    for (int i = 0; i < active.length; i++) {
      d.addDevices(DeviceDesc.newBuilder().setName("r" + i).setActive(active[i]));
      b.addRkeys(70 + i);
    }
    return new PeerSegment("p", d.addBuffers(b).build());
  }

  @Test
  void roundRobinCoversEveryPairEvenly() {
    PeerRails rails = selector.railsFor(segment(true, true));
    Map<RailRoute, Integer> picks = new HashMap<>();
    Set<Integer> locals = new HashSet<>();
    for (int i = 0; i < 400; i++) {
      RailRoute r = pick(rails, null);
      picks.merge(r, 1, Integer::sum);
      locals.add(r.rail().localDeviceIndex());
    }
    assertEquals(4, picks.size(), "2 local x 2 peer devices: " + picks);
    picks.values().forEach(n -> assertEquals(100, n));
    assertEquals(Set.of(0, 1), locals);
    RailRoute a = pick(rails, null);
    RailRoute b = pick(rails, null);
    assertNotEquals(
        a.rail().localDeviceIndex(),
        b.rail().localDeviceIndex(),
        "consecutive picks alternate local devices");
  }

  @Test
  void railWhoseCompletionsAreSlowGetsFewerSlices() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute slow = railTo(rails, 0, "r0");
    RailRoute fast = railTo(rails, 1, "r0");
    Map<RailRoute, Integer> got = drain(rails, Map.of(slow, SLICE / 4, fast, SLICE), 8, 20_000);
    double share = got.get(slow) / (double) (got.get(slow) + got.get(fast));
    // Drain rates 1:4, so its fair share is 1/5; round-robin would give it 1/2.
    assertTrue(share > 0.12 && share < 0.3, "slow rail's share " + share + " of " + got);
    assertEquals(0, selector.outstandingBytes(), "every slice released");
  }

  @Test
  void equalRailsGetAnEvenShare() {
    PeerRails rails = selector.railsFor(segment(true, true));
    Map<RailRoute, Integer> rates = new HashMap<>();
    for (int local = 0; local < 2; local++) {
      for (String peer : List.of("r0", "r1")) {
        rates.put(railTo(rails, local, peer), SLICE / 2);
      }
    }
    Map<RailRoute, Integer> got = drain(rails, rates, 16, 20_000);
    int total = got.values().stream().mapToInt(Integer::intValue).sum();
    for (Map.Entry<RailRoute, Integer> e : got.entrySet()) {
      double share = e.getValue() / (double) total;
      assertTrue(share > 0.2 && share < 0.3, e.getKey() + " got " + share + " of " + got);
    }
    assertEquals(0, selector.outstandingBytes(), "every slice released");
  }

  @Test
  void heldDownRailGetsNoSlicesThoughItsBacklogIsLeast() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute held = railTo(rails, 0, "r0");
    RailRoute other = railTo(rails, 1, "r0");
    drain(rails, Map.of(held, SLICE, other, SLICE), 8, 1_000);
    held.onFailure(SliceStatus.RAIL_DOWN, CAUSE);
    Map<RailRoute, Integer> got = drain(rails, Map.of(held, SLICE, other, SLICE), 8, 1_000);
    assertEquals(0, got.getOrDefault(held, 0), "held down: " + got);
    assertTrue(got.get(other) > 500, "the other rail carries it all: " + got);
    assertEquals(0, selector.outstandingBytes(), "every slice released");
  }

  @Test
  void outstandingBytesFollowSelectAndRelease() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute a = rails.select(0, null, SLICE);
    RailRoute b = rails.select(0, null, 100);
    assertNotEquals(a, b, "the second slice goes to the idle rail");
    assertEquals(SLICE + 100, selector.outstandingBytes());
    RailRoute c = rails.select(0, null, 10);
    assertEquals(b, c, "the rail with the smaller backlog");
    a.release(SLICE, true);
    b.release(100, false);
    c.release(10, true);
    assertEquals(0, selector.outstandingBytes());
  }

  /**
   * Runs a closed loop on the fake clock: {@code inFlight} slices at all times, each rail
   * completing its slices in order at {@code rates} bytes per 100 µs tick; ended slices are
   * released and replaced by new selections.
   *
   * @return slices selected per rail; every slice has ended when it returns
   */
  private Map<RailRoute, Integer> drain(
      PeerRails rails, Map<RailRoute, Integer> rates, int inFlight, int ticks) {
    Map<RailRoute, ArrayDeque<Integer>> queues = new HashMap<>();
    Map<RailRoute, Long> budget = new HashMap<>();
    Map<RailRoute, Integer> got = new HashMap<>();
    rates
        .keySet()
        .forEach(
            r -> {
              queues.put(r, new ArrayDeque<>());
              budget.put(r, 0L);
            });
    int queued = 0;
    for (int t = 0; t <= ticks; t++) {
      boolean last = t == ticks;
      for (int i = queued; i < inFlight && !last; i++, queued++) {
        RailRoute r = rails.select(0, null, SLICE);
        queues.get(r).add(SLICE);
        got.merge(r, 1, Integer::sum);
      }
      clock.addAndGet(100_000);
      for (RailRoute r : rates.keySet()) {
        ArrayDeque<Integer> q = queues.get(r);
        long left = q.isEmpty() ? 0 : budget.get(r) + rates.get(r);
        while (!q.isEmpty() && (last || q.peek() <= left)) {
          left -= q.peek();
          r.release(q.poll(), true);
          queued--;
        }
        budget.put(r, Math.max(0, left));
      }
    }
    return got;
  }

  @Test
  void avoidedRailIsUsedOnlyWhenItIsTheLastOne() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute first = pick(rails, null);
    for (int i = 0; i < 10; i++) {
      assertNotEquals(first, pick(rails, first));
    }
    selector.setLocalPortUp(1 - first.rail().localDeviceIndex(), false);
    assertEquals(first, pick(rails, first), "the only usable rail is returned even when avoided");
  }

  @Test
  void portDownSkipsRailsAtOnceAndPortUpRestoresThem() {
    PeerRails rails = selector.railsFor(segment(true, true));
    selector.setLocalPortUp(0, false);
    for (int i = 0; i < 50; i++) {
      assertEquals(1, pick(rails, null).rail().localDeviceIndex());
    }
    selector.setLocalPortUp(1, false);
    assertNull(pick(rails, null));
    selector.setLocalPortUp(0, true);
    assertEquals(0, pick(rails, null).rail().localDeviceIndex());
  }

  @Test
  void inactivePeerDeviceIsSkippedWhileHeldDown() {
    PeerRails rails = selector.railsFor(segment(false, true));
    for (int i = 0; i < 50; i++) {
      assertEquals("r1", pick(rails, null).rail().peerDeviceName());
    }
  }

  @Test
  void aPeerDeviceTheLastDescriptorCallsDownIsProbedWhenItsHoldDownEnds() {
    // the peer's NIC went down: its newer descriptor says so; when the NIC comes back the peer
    // publishes again, but nothing here reads that descriptor, so the probe must bring r0 back
    selector.railsFor(segment(1, true, true));
    PeerRails rails = selector.railsFor(segment(2, false, true));
    assertEquals(0, count(rails, "r0", 40), "held down while the peer's word is fresh");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, "r0", 40), "the hold-down ends with a single probe");
    lastPick.onSuccess();
    assertEquals(
        20, count(rails, "r0", 40), "a successful probe brings r0 back, whatever the descriptor");
  }

  @Test
  void anOlderDescriptorThatCallsADeviceDownDoesNotHoldItDown() {
    selector.railsFor(segment(2, true, true));
    PeerRails rails = selector.railsFor(segment(1, false, true));
    assertEquals(20, count(rails, "r0", 40), "a newer descriptor said r0 is up");
  }

  @Test
  void repeatedErrorsPauseARailUntilHoldDownThenOneProbeFailureRepausesIt() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute bad = pick(rails, null);
    int err = WcStatus.GENERAL_ERR.code();
    bad.onFailure(err, CAUSE);
    bad.onFailure(err, CAUSE);
    assertTrue(picks(rails).contains(bad), "two errors do not pause yet");
    assertNull(rails.pausedCause(), "nothing paused, nothing to explain");
    bad.onFailure(err, CAUSE);
    assertTrue(!picks(rails).contains(bad), "three errors pause the rail");
    assertSame(CAUSE, rails.pausedCause(), "the pause says why");
    clock.addAndGet(HOLD_DOWN - 1);
    assertTrue(!picks(rails).contains(bad), "still paused just before the hold-down ends");
    clock.addAndGet(1);
    assertEquals(1, count(rails, bad, 20), "one probe after the hold-down, the others keep away");
    bad.onFailure(err, CAUSE);
    assertTrue(!picks(rails).contains(bad), "a failed probe pauses it again at once");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, bad, 20), "probed again");
    bad.onSuccess();
    assertEquals(10, count(rails, bad, 20), "a successful probe ends the hold-down");
    bad.onFailure(err, CAUSE);
    assertTrue(picks(rails).contains(bad), "a success clears the error count");
  }

  @Test
  void retryExceededHoldsDownEveryRailToThatPeerDeviceAtOnce() {
    PeerSegment seg = segment(true, true, true);
    PeerRails rails = selector.railsFor(seg);
    RailRoute bad = railTo(rails, 0, "r1");
    bad.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    for (int i = 0; i < 60; i++) {
      RailRoute r = pick(rails, bad);
      assertNotEquals(
          "r1",
          r.rail().peerDeviceName(),
          "no rail from any local device leads to the dead r1: " + r);
    }
    assertSame(CAUSE, rails.pausedCause());
    PeerRails refreshed = selector.railsFor(segment(true, true, true));
    assertEquals(0, count(refreshed, "r1", 60), "the hold-down survives a descriptor refresh");

    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, "r1", 60), "the hold-down ends with a single probe");
    RailRoute probe = lastPick;
    probe.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    assertEquals(0, count(rails, "r1", 60), "a failed probe holds the device down again");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(1, count(rails, "r1", 60));
    lastPick.onSuccess();
    assertEquals(
        20, count(rails, "r1", 60), "a successful probe ends the hold-down of every rail to r1");
  }

  @Test
  void peerDeviceDownAnswerHoldsDownEveryRailToThatDevice() {
    PeerRails rails = selector.railsFor(segment(true, true));
    railTo(rails, 1, "r0").onFailure(SliceStatus.PEER_DEVICE_DOWN, CAUSE);
    assertEquals(0, count(rails, "r0", 40), "both local devices stay away from r0");
    assertEquals(40, count(rails, "r1", 40));
  }

  @Test
  void retryExceededWithTheLocalPortDownBlamesTheLocalDevice() {
    PeerRails rails = selector.railsFor(segment(true, true));
    RailRoute rail = railTo(rails, 0, "r0");
    selector.setLocalPortUp(0, false);
    rail.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    for (int i = 0; i < 40; i++) {
      assertEquals(1, pick(rails, null).rail().localDeviceIndex(), "local device 0 is down");
    }
    assertEquals(20, count(rails, "r0", 40), "r0 is not held down: the local port was to blame");
    selector.setLocalPortUp(0, true);
    assertTrue(picks(rails).contains(rail), "port up: the rail is back at once");
  }

  @Test
  void whenEveryPeerDeviceIsHeldDownTheOneHeldLongestIsProbedRatherThanFailing() {
    PeerRails rails = selector.railsFor(segment(true, true));
    railTo(rails, 0, "r1").onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    clock.addAndGet(10);
    railTo(rails, 0, "r0").onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    assertEquals(20, count(rails, "r1", 20), "r1 was held down first: it is the one tried");
    lastPick.onSuccess();
    assertEquals(0, count(rails, "r0", 20), "r0 stays held down");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(
        1,
        count(rails, "r0", 20),
        "r0's hold-down ends with one probe; r1's ended with its success");
  }

  @Test
  void aRailProbedBecauseNothingElseWasLeftIsGivenUpAfterRepeatedFailures() {
    PeerRails rails = selector.railsFor(segment(true));
    selector.setLocalPortUp(1, false);
    RailRoute only = pick(rails, null);
    for (int i = 0; i < 3; i++) {
      assertEquals(only, pick(rails, only), "attempt " + i);
      only.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    }
    assertNull(pick(rails, null), "every rail is held down by its own failures: no rail");
    assertSame(CAUSE, rails.pausedCause());
  }

  @Test
  void whileTheOnlyRailIsProbedTheOtherSlicesJoinTheProbeRatherThanFail() {
    PeerRails rails = selector.railsFor(segment(true));
    selector.setLocalPortUp(1, false);
    RailRoute only = pick(rails, null);
    only.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    only.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    only.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    assertNull(pick(rails, null), "held down by its own failures and not probed: no rail");
    clock.addAndGet(HOLD_DOWN);
    assertEquals(only, pick(rails, null), "the hold-down ended: the probe");
    for (int i = 0; i < 20; i++) {
      assertEquals(only, pick(rails, null), "slice " + i + " joins the probe in flight");
    }
    only.onFailure(WcStatus.RETRY_EXC_ERR.code(), CAUSE);
    assertNull(pick(rails, null), "the probe failed: held down again, nothing to join");
    assertSame(CAUSE, rails.pausedCause());
    clock.addAndGet(HOLD_DOWN);
    assertEquals(only, pick(rails, null), "probed again");
    only.onSuccess();
    assertEquals(20, count(rails, only, 20), "the probe succeeded: the rail is back");
  }

  @Test
  void nonPenalizingFailuresDoNotPauseAndRailDownPausesAtOnce() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute r = pick(rails, null);
    for (int i = 0; i < 10; i++) {
      r.onFailure(SliceStatus.ENDPOINT_RETIRED, CAUSE);
      r.onFailure(WcStatus.REM_ACCESS_ERR.code(), CAUSE);
    }
    assertTrue(picks(rails).contains(r));
    r.onFailure(SliceStatus.RAIL_DOWN, CAUSE);
    assertTrue(!picks(rails).contains(r));
  }

  @Test
  void healthSurvivesADescriptorRefresh() {
    PeerSegment v1 = segment(true);
    PeerRails rails = selector.railsFor(v1);
    assertSame(rails, selector.railsFor(v1));
    RailRoute bad = pick(rails, null);
    for (int i = 0; i < 3; i++) {
      bad.onFailure(SliceStatus.HANDSHAKE_FAILED, CAUSE);
    }
    PeerRails fresh = selector.railsFor(segment(true));
    assertNotNull(pick(fresh, null));
    for (int i = 0; i < 20; i++) {
      assertNotEquals(bad, pick(fresh, null));
    }
  }

  private RailRoute lastPick;

  /** Selects {@code n} times, counting the picks of {@code rail}. */
  private int count(PeerRails rails, RailRoute rail, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
      if (rail.equals(pick(rails, null))) {
        c++;
      }
    }
    return c;
  }

  /**
   * Selects {@code n} times, counting the picks leading to peer device {@code peer} (the last one
   * in lastPick).
   */
  private int count(PeerRails rails, String peer, int n) {
    int c = 0;
    for (int i = 0; i < n; i++) {
      RailRoute r = pick(rails, null);
      if (r != null && r.rail().peerDeviceName().equals(peer)) {
        c++;
        lastPick = r;
      }
    }
    return c;
  }

  @Test
  void aRailWhoseOwnerRunsHereTakesSmallSlicesUntilItsBacklogIsLongerThanTheSlack() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute here = railTo(rails, 1, "r0");
    RailRoute other = railTo(rails, 0, "r0");
    runsHere = (r -> r == here.rail());
    assertPreferredUntilTheSlack(rails, here);
    assertEquals(other, pick(rails, here), "a retry that avoids it goes elsewhere");

    runsHere = (r -> false);
    RailRoute a = pick(rails, null);
    RailRoute b = pick(rails, null);
    assertNotEquals(a, b, "no owner here: round-robin as before");
  }

  @Test
  void withNoOwnerHereARailWhoseOwnerPollsTakesSmallSlicesWithinTheSlack() {
    PeerRails rails = selector.railsFor(segment(true));
    RailRoute awake = railTo(rails, 1, "r0");
    RailRoute here = railTo(rails, 0, "r0");
    polls = (r -> r == awake.rail());
    assertPreferredUntilTheSlack(rails, awake);

    runsHere = (r -> r == here.rail());
    assertEquals(here, pick(rails, null), "an owner on this thread comes before a polling one");
    runsHere = (r -> false);
    polls = (r -> false);
    assertNotEquals(pick(rails, null), pick(rails, null), "no owner awake: round-robin as before");
  }

  /**
   * Small slices go to {@code preferred} until its backlog passes the slack, the next one to
   * another rail; once all are released, {@code preferred} is picked again.
   */
  private static void assertPreferredUntilTheSlack(PeerRails rails, RailRoute preferred) {
    int small = 4096;
    // unmeasured rails: a byte counts as a nanosecond, so the slack is LOCAL_OWNER_NANOS bytes
    long fit = RailSelector.LOCAL_OWNER_NANOS / small + 1;
    for (int i = 0; i < fit; i++) {
      assertEquals(preferred, rails.select(0, null, small), "slice " + i + " takes the preferred");
    }
    RailRoute spread = rails.select(0, null, small);
    assertNotEquals(preferred, spread, "a backlog past the slack spreads");
    for (int i = 0; i < fit; i++) {
      preferred.release(small, false);
    }
    spread.release(small, false);
    assertEquals(preferred, pick(rails, null), "an empty backlog brings it back");
  }

  private static RailRoute railTo(PeerRails rails, int local, String peer) {
    for (int i = 0; i < 100; i++) {
      RailRoute r = pick(rails, null);
      if (r.rail().localDeviceIndex() == local && r.rail().peerDeviceName().equals(peer)) {
        return r;
      }
    }
    throw new AssertionError("no rail l" + local + "->" + peer);
  }

  private static PeerSegment segmentAt(String... addresses) throws Exception {
    SegmentDescriptor.Builder d = SegmentDescriptor.newBuilder().setName("p").setServerName("p:1");
    BufferDesc.Builder b = BufferDesc.newBuilder().setAddress(4096).setLength(4096);
    for (int i = 0; i < addresses.length; i++) {
      byte[] gid = Gid.fromInetAddress(InetAddress.getByName(addresses[i])).toBytes();
      d.addDevices(
          DeviceDesc.newBuilder()
              .setName("r" + i)
              .setActive(true)
              .setGid(ByteString.copyFrom(gid)));
      b.addRkeys(70 + i);
    }
    return new PeerSegment("p", d.addBuffers(b).build());
  }

  @Test
  void wiredRailsCarryEverySliceAndTheOthersOnlyWhileNoWiredOneIsUsable() throws Exception {
    RailSelector wired =
        selector(
            List.of("", ""), RailAffinity.ofSubnets(List.of("198.18.0.1/24", "198.19.0.1/24")));
    PeerRails rails = wired.railsFor(segmentAt("198.18.0.2", "198.19.0.2"));
    RailRoute l0r0 = railTo(rails, 0, "r0");
    RailRoute l1r1 = railTo(rails, 1, "r1");
    assertEquals(
        Set.of(l0r0, l1r1), picks(rails), "each local device to the peer device of its subnet");
    wired.setLocalPortUp(0, false);
    assertEquals(
        Set.of(l1r1), picks(rails), "l0's port is down: l1's wired rail alone, not l1 -> r0");
    l1r1.onFailure(SliceStatus.RAIL_DOWN, CAUSE);
    assertEquals(
        Set.of(railTo(rails, 1, "r0")), picks(rails), "no wired rail usable: the other rail of l1");
    wired.setLocalPortUp(0, true);
    assertEquals(
        Set.of(l0r0), picks(rails), "a wired rail is usable again: the others get nothing");
  }

  private static Set<RailRoute> picks(PeerRails rails) {
    Set<RailRoute> out = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      RailRoute r = pick(rails, null);
      if (r != null) {
        out.add(r);
      }
    }
    return out;
  }

  /**
   * Selects a rail for one slice that ends at once without moving bytes (the rail's backlog stays
   * 0).
   */
  @Test
  void fallbackRailsCarrySlicesOnlyWhileNoRdmaRailIsUsable() {
    RailSelector mixed =
        selector(
            List.of("ib0", "ib1", "tcp0"),
            List.of("ibverbs", "ibverbs", "soft"),
            RailAffinity.NONE);
    SegmentDescriptor.Builder d =
        SegmentDescriptor.newBuilder().setName("p").setServerName("p:1").setTransport("ibverbs");
    BufferDesc.Builder b = BufferDesc.newBuilder().setAddress(4096).setLength(4096);
    String[][] peer = {{"pib0", "ibverbs"}, {"pib1", ""}, {"ptcp0", "soft"}};
    for (int i = 0; i < peer.length; i++) {
      d.addDevices(
          DeviceDesc.newBuilder().setName(peer[i][0]).setTransport(peer[i][1]).setActive(true));
      b.addRkeys(70 + i);
    }
    PeerRails rails = mixed.railsFor(new PeerSegment("p", d.addBuffers(b).build()));
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 40; i++) {
      RailRoute r = pick(rails, null);
      seen.add(r.rail().localDeviceName() + ">" + r.rail().peerDeviceName());
    }
    assertEquals(
        Set.of("ib0>pib0", "ib0>pib1", "ib1>pib0", "ib1>pib1"),
        seen,
        "RDMA rails only (a device without a transport is the segment's)");
    mixed.setLocalPortUp(0, false);
    assertEquals("ib1", pick(rails, null).rail().localDeviceName(), "one RDMA device left");
    mixed.setLocalPortUp(1, false);
    for (int i = 0; i < 10; i++) {
      RailRoute r = pick(rails, null);
      assertEquals(
          "tcp0>ptcp0", r.rail().localDeviceName() + ">" + r.rail().peerDeviceName(), "fallback");
    }
    mixed.setLocalPortUp(0, true);
    for (int i = 0; i < 10; i++) {
      assertEquals("ib0", pick(rails, null).rail().localDeviceName(), "back on RDMA");
    }
    assertEquals(
        5,
        mixed.snapshot().size(),
        "no rail between devices of two providers: " + mixed.snapshot());
  }

  private static RailRoute pick(PeerRails rails, RailRoute avoid) {
    RailRoute r = rails.select(0, avoid, SLICE);
    if (r != null) {
      r.release(SLICE, false);
    }
    return r;
  }
}
