package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.OwnerHarness.Call;
import io.vte.engine.impl.owner.OwnerHarness.Recorder;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.WcStatus;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A connected endpoint whose work in flight stops completing has its peer probed after {@code
 * peerProbeAfter} (fake clock, fake channel, fake verbs): a refused connection means the peer is
 * gone and its slices end PEER_GONE at once; a peer that answers but no longer holds the endpoint
 * has it retired and its slices go again; a slow peer that answers ACCEPTED is left alone. A
 * refused handshake to a peer that was alive fails at once; to a peer never seen, it backs off.
 */
class PeerProbesTest {

  private static final Duration PROBE_AFTER = Duration.ofMillis(100);

  /**
   * Past the probe period and the check that notices it (a quarter period); the whole test stays
   * under the stall limit (QP timeout x (retry count + 2), 604 ms here) that retires a quiet
   * endpoint anyway.
   */
  private static final Duration QUIET = PROBE_AFTER.plus(PROBE_AFTER.dividedBy(2));

  private static OwnerHarness connectedWithWorkInFlight(Recorder rec, int slices) {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config().withPeerProbeAfter(PROBE_AFTER));
    h.submit(rec, "b:1", slices);
    h.run();
    Endpoint ep = h.owner.endpoint("b:1@d0");
    assertEquals(EndpointState.CONNECTED, ep.state());
    assertEquals(slices, ep.outstanding(), "posted, not completed");
    return h;
  }

  /** Lets the quiet time pass and returns the probe the owner sent then. */
  private static Call probeAfterQuiet(OwnerHarness h) {
    int before = h.channel.readyCalls.size();
    h.clock.advance(PROBE_AFTER.minusMillis(1));
    h.run();
    assertEquals(before, h.channel.readyCalls.size(), "no probe before the quiet time");
    h.clock.advance(QUIET.minus(PROBE_AFTER.minusMillis(1)));
    h.run();
    assertEquals(before + 1, h.channel.readyCalls.size(), "one probe after the quiet time");
    return h.channel.readyCalls.get(before);
  }

  private static VteException refused() {
    return new VteException(
        ErrorCode.PEER_UNREACHABLE,
        "Connect to b:1 could not reach the peer",
        new ConnectException("Connection refused: b:1"));
  }

  private static void assertGone(Recorder rec, List<Slice> slices) {
    for (Slice s : slices) {
      assertEquals(SliceStatus.PEER_GONE, rec.status.get(s), "slice " + s + " ended PEER_GONE");
      assertEquals(ErrorCode.PEER_UNREACHABLE, ((VteException) rec.causes.get(s)).code());
    }
  }

  @Test
  void aRefusedProbeDeclaresThePeerGoneAndEndsItsSlicesAtOnce() {
    Recorder rec = new Recorder();
    OwnerHarness h = connectedWithWorkInFlight(rec, 4);
    Call probe = probeAfterQuiet(h);
    assertEquals(
        h.owner.endpoint("b:1@d0").peerGeneration(),
        probe.request().getReadyGeneration(),
        "the probe is the ready-to-use of the endpoint again");
    probe.reply().fail(refused());
    h.run();
    h.device.completeAll(WcStatus.WR_FLUSH_ERR);
    h.run();
    assertEquals(4, rec.completed(), "every slice ended without waiting for a deadline");
    assertGone(rec, List.copyOf(rec.status.keySet()));
    assertNull(h.owner.endpoint("b:1@d0"), "its endpoint is retired");
    assertEquals(1, h.owner.metrics().endpointsPeerGone());
    assertTrue(h.peers.isGone("b:1"));

    // A new slice to it: its handshake is refused, and it fails at once, without a backoff.
    Recorder later = new Recorder();
    h.channel.autoAccept = false;
    Slice next = h.submit(later, "b:1", 1).get(0);
    h.run();
    h.channel.last().reply().fail(refused());
    h.run();
    assertEquals(SliceStatus.PEER_GONE, later.status.get(next));

    // It restarts: a handshake succeeds and it is alive again.
    Recorder back = new Recorder();
    h.submit(back, "b:1", 1);
    h.run();
    h.channel.last().reply().complete(OwnerHarness.acceptAs(h.channel.last().request(), 9));
    h.run();
    assertEquals(EndpointState.CONNECTED, h.owner.endpoint("b:1@d0").state());
    assertTrue(!h.peers.isGone("b:1"), "alive again after a handshake");
  }

  @Test
  void aSlowPeerThatAnswersTheProbeKeepsItsEndpoint() {
    Recorder rec = new Recorder();
    OwnerHarness h = connectedWithWorkInFlight(rec, 3);
    Endpoint ep = h.owner.endpoint("b:1@d0");
    Call probe = probeAfterQuiet(h);
    probe.reply().complete(OwnerHarness.acceptAs(probe.request(), ep.peerGeneration()));
    h.run();
    assertSame(ep, h.owner.endpoint("b:1@d0"), "the endpoint stays");
    assertEquals(EndpointState.CONNECTED, ep.state());
    assertEquals(0, rec.completed(), "its slices still wait for their completions");
    // At most one probe per peer per period: the next one goes only after another period.
    h.clock.advance(PROBE_AFTER.dividedBy(2));
    h.run();
    assertEquals(2, h.channel.readyCalls.size(), "ready-to-use and one probe so far");
    h.clock.advance(PROBE_AFTER);
    h.run();
    assertEquals(3, h.channel.readyCalls.size(), "probed again while still quiet");
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    assertEquals(3, rec.count(SliceStatus.OK));
    assertTrue(!h.peers.isGone("b:1"));
  }

  @Test
  void aPeerThatNoLongerHoldsTheEndpointHasItRetiredAndTheSlicesGoAgain() {
    Recorder rec = new Recorder();
    OwnerHarness h = connectedWithWorkInFlight(rec, 2);
    Call probe = probeAfterQuiet(h);
    probe
        .reply()
        .complete(
            ConnectReply.newBuilder()
                .setStatus(ConnectStatus.INVALID_REQUEST)
                .setReason("no endpoint of generation 1")
                .build());
    h.run();
    h.device.completeAll(WcStatus.WR_FLUSH_ERR);
    h.run();
    assertEquals(2, rec.count(SliceStatus.ENDPOINT_RETIRED), "retried by the submitter");
    assertNull(h.owner.endpoint("b:1@d0"));
    assertTrue(!h.peers.isGone("b:1"), "the peer itself is alive");
  }

  @Test
  void aRefusedFirstContactBacksOffAsBefore() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 1);
    h.run();
    h.channel.last().reply().fail(refused());
    h.run();
    assertEquals(
        EndpointState.CONNECTING,
        h.owner.endpoint("b:1@d0").state(),
        "a peer never seen may still be starting");
    assertEquals(0, rec.completed());
  }

  /** The other side of a probe: a connected endpoint answers its ready-to-use again ACCEPTED. */
  @Test
  void aProbeOfAConnectedEndpointIsAnsweredAcceptedAndAStaleOneIsNot() {
    OwnerHarness lower = new OwnerHarness("a:1", OwnerHarness.config());
    OwnerHarness higher = new OwnerHarness("b:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    lower.submit(rec, "b:1", 1);
    lower.run();
    ConnectReply accepted = higher.passive(lower.channel.last().request());
    lower.channel.last().reply().complete(accepted);
    lower.run();
    ConnectRequest ready = lower.channel.readies.get(0);
    assertEquals(ConnectStatus.ACCEPTED, higher.passive(ready).getStatus(), "the ready-to-use");
    assertEquals(ConnectStatus.ACCEPTED, higher.passive(ready).getStatus(), "a probe");
    ConnectRequest stale = ready.toBuilder().setGeneration(ready.getGeneration() + 1).build();
    assertEquals(ConnectStatus.INVALID_REQUEST, higher.passive(stale).getStatus());
  }
}
