package io.vte.engine.impl.owner;

import static io.vte.engine.impl.owner.OwnerTest.requestFrom;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.owner.OwnerHarness.Recorder;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.WireVersions;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.QpState;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The owner's connector, driven through its owner as the engine drives it (fake verbs, channel,
 * clock).
 */
class ConnectorTest {

  /**
   * The simultaneous-open loser accepts the winner's request on its own CONNECTING endpoint; when
   * its QPs cannot be connected, the endpoint ends the one way a failed handshake ends: counted,
   * FAILED, out of the store, its slices HANDSHAKE_FAILED, its QPs destroyed, and the peer told
   * INVALID_REQUEST.
   */
  @Test
  void aPassiveOpenThatCannotConnectItsQpsFailsTheEndpointAndCountsIt() {
    OwnerHarness h = new OwnerHarness("b:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    List<Slice> slices = h.submit(rec, "a:1", 3);
    h.run();
    Endpoint ep = h.owner.endpoint("a:1@d0");
    assertEquals(EndpointState.CONNECTING, ep.state());
    ((FakeVerbs.Qp) ep.qp(0)).state = QpState.ERR;
    ConnectReply reply = h.passive(requestFrom("a:1@d0", "b:1@d0", ep.qpCount(), 7));
    assertEquals(ConnectStatus.INVALID_REQUEST, reply.getStatus());
    assertTrue(reply.getReason().contains("cannot connect to a:1@d0"), reply.getReason());
    assertEquals(EndpointState.FAILED, ep.state());
    assertNull(h.owner.endpoint("a:1@d0"));
    assertEquals(
        1, h.owner.metrics().handshakesFailed(), "a passive failure is a failed handshake too");
    for (Slice s : slices) {
      assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(s));
      assertEquals(ErrorCode.PROTOCOL_ERROR, ((VteException) rec.causes.get(s)).code());
    }
    assertTrue(h.device.liveQps().isEmpty());
    assertTrue(h.directory.liveQpNumbers().isEmpty());
    // The answer to our own abandoned attempt lands later: dropped, nothing moves again.
    h.channel.last().reply().complete(OwnerHarness.acceptAs(h.channel.last().request(), 3));
    h.run();
    assertEquals(1, h.owner.metrics().staleRepliesDropped());
    assertEquals(EndpointState.FAILED, ep.state());
    assertEquals(0, rec.duplicates);
  }

  /**
   * The higher NIC path yields to the lower one, whichever side asks first; the lower one keeps its
   * attempt.
   */
  @Test
  void simultaneousOpenIsDecidedByTheOrderOfTheNicPaths() {
    Crossing open = Crossing.submit(1, 1);
    OwnerHarness lower = open.lower();
    OwnerHarness higher = open.higher();
    Endpoint lowerEp = lower.owner.endpoint("b:1@d0");
    Endpoint higherEp = higher.owner.endpoint("a:1@d0");
    ConnectReply toHigher = lower.passive(higher.channel.last().request());
    assertEquals(ConnectStatus.SIMULTANEOUS_OPEN, toHigher.getStatus());
    assertEquals(EndpointState.CONNECTING, lowerEp.state(), "the lower path keeps its attempt");
    long before = higherEp.generation();
    ConnectReply toLower = higher.passive(lower.channel.last().request());
    assertEquals(ConnectStatus.ACCEPTED, toLower.getStatus());
    assertSame(
        higherEp, higher.owner.endpoint("a:1@d0"), "the higher path accepts on the same endpoint");
    assertEquals(EndpointState.CONNECTED, higherEp.state());
    assertTrue(higherEp.generation() > before, "its own attempt's answer becomes stale");
    lower.channel.last().reply().complete(toLower);
    lower.run();
    assertEquals(EndpointState.CONNECTED, lowerEp.state());
    assertEquals(1, lower.owner.metrics().simultaneousOpensKept());
    assertEquals(1, higher.owner.metrics().simultaneousOpensYielded());
  }

  /**
   * The passive side posts nothing until the active side says its QPs are in RTS (before, they are
   * in INIT and a NIC drops the packets until a retransmit): the active side sends its ready-to-use
   * once connected, naming both generations; a stale one moves nothing.
   */
  @Test
  void thePassiveSidePostsOnlyOnTheActiveSidesReadyToUse() {
    Crossing open = Crossing.submit(1, 2);
    OwnerHarness lower = open.lower();
    OwnerHarness higher = open.higher();
    Endpoint passive = higher.owner.endpoint("a:1@d0");
    ConnectReply accepted = higher.passive(lower.channel.last().request());
    assertEquals(ConnectStatus.ACCEPTED, accepted.getStatus());
    higher.run();
    assertEquals(EndpointState.CONNECTED, passive.state());
    assertEquals(0, higher.owner.outstanding(), "nothing posted before the peer is ready");
    assertEquals(2, passive.pendingCount());
    lower.channel.last().reply().complete(accepted);
    lower.run();
    assertEquals(1, lower.channel.readies.size(), "the active side says it is ready, once");
    ConnectRequest ready = lower.channel.readies.get(0);
    assertEquals(accepted.getGeneration(), ready.getReadyGeneration());
    ConnectRequest stale =
        ready.toBuilder().setReadyGeneration(accepted.getGeneration() + 1).build();
    assertEquals(ConnectStatus.INVALID_REQUEST, higher.passive(stale).getStatus());
    higher.run();
    assertEquals(0, higher.owner.outstanding(), "a ready-to-use for another generation is stale");
    assertEquals(ConnectStatus.ACCEPTED, higher.passive(ready).getStatus());
    higher.run();
    assertEquals(2, higher.owner.outstanding(), "posted on the peer's ready-to-use");
  }

  /**
   * A simultaneous open whose reply takes longer than one QP ACK timeout to reach the winner (rxe
   * guests under TCG: over a second, the default ACK timeout): the loser, passive now with its own
   * slices queued, posts nothing while the winner's QPs are still in INIT (a NIC drops what reaches
   * them, and the first packets wait one ACK timeout for a retransmit), only on the winner's
   * ready-to-use, sent once they are in RTS.
   */
  @Test
  void aSlowSimultaneousOpenPostsNothingWhileTheWinnersQpsAreInInit() {
    Crossing open = Crossing.submit(2, 2);
    OwnerHarness lower = open.lower();
    OwnerHarness higher = open.higher();
    assertEquals(
        ConnectStatus.SIMULTANEOUS_OPEN,
        lower.passive(higher.channel.last().request()).getStatus());
    ConnectReply accepted = higher.passive(lower.channel.last().request());
    assertEquals(ConnectStatus.ACCEPTED, accepted.getStatus());
    Endpoint winner = lower.owner.endpoint("b:1@d0");
    Duration ackTimeout = ackTimeout();
    for (int i = 1; i <= 3; i++) {
      higher.clock.advance(ackTimeout);
      higher.run();
      assertEquals(QpState.INIT, ((FakeVerbs.Qp) winner.qp(0)).state());
      assertEquals(
          0,
          higher.owner.outstanding(),
          "posted " + i + " ACK timeouts after its answer, to QPs still in INIT");
    }
    lower.channel.last().reply().complete(accepted);
    lower.run();
    assertEquals(QpState.RTS, ((FakeVerbs.Qp) winner.qp(0)).state());
    assertEquals(ConnectStatus.ACCEPTED, higher.passive(lower.channel.readies.get(0)).getStatus());
    higher.run();
    assertEquals(2, higher.owner.outstanding(), "posted on the winner's ready-to-use");
    assertEquals(2, lower.owner.outstanding(), "and the winner once in RTS");
  }

  /**
   * A ready-to-use that never comes (lost) lets the passive side post after the handshake deadline,
   * the time the active side allows for the answer it must get before it can send one.
   */
  @Test
  void withoutTheReadyToUseThePassiveSidePostsAfterTheHandshakeDeadline() {
    OwnerHarness h = new OwnerHarness("b:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "a:1", 1);
    h.run();
    Endpoint ep = h.owner.endpoint("a:1@d0");
    h.passive(requestFrom("a:1@d0", "b:1@d0", ep.qpCount(), 7));
    h.run();
    assertEquals(0, h.owner.outstanding());
    h.clock.advance(OwnerHarness.config().handshakeDeadline().minusNanos(1));
    h.run();
    assertEquals(0, h.owner.outstanding(), "not before the handshake deadline");
    h.clock.advance(Duration.ofNanos(1));
    h.run();
    assertEquals(1, h.owner.outstanding(), "posted after it");
  }

  private static Duration ackTimeout() {
    return Duration.ofNanos(
        new io.vte.verbs.RtsAttributes(0, OwnerHarness.config().qpTimeout(), 0, 0).timeoutNanos());
  }

  /**
   * An answer that lands after its endpoint was retired (port down) is dropped: no move out of
   * RETIRED.
   */
  @Test
  void aReplyForARetiredEndpointIsDropped() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    Slice s = h.submit(rec, "b:1", 1).get(0);
    h.run();
    Endpoint ep = h.owner.endpoint("b:1@d0");
    h.proxy.portDown(1);
    h.run();
    assertEquals(EndpointState.RETIRED, ep.state());
    assertEquals(SliceStatus.RAIL_DOWN, rec.status.get(s));
    h.channel.last().reply().complete(OwnerHarness.acceptAs(h.channel.last().request(), 1));
    h.run();
    assertEquals(1, h.owner.metrics().staleRepliesDropped());
    assertEquals(EndpointState.RETIRED, ep.state());
    assertEquals(0, h.owner.endpointCount());
    assertTrue(h.device.liveQps().isEmpty());
  }

  /**
   * With at most 2 connect requests in flight, the other handshakes wait unsent and do not age: a
   * reply frees a slot for the oldest waiting one, and when the requests in flight time out the
   * waiting ones are sent with a whole deadline of their own instead of failing with them.
   */
  @Test
  void handshakesBeyondTheBoundWaitUnsentAndGetTheirWholeDeadlineWhenSent() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config().withMaxHandshakesInFlight(2));
    Recorder rec = new Recorder();
    for (int p = 0; p < 5; p++) {
      h.submit(rec, "p" + p + ":1", 1);
    }
    h.run();
    assertEquals(2, h.channel.calls.size(), "two requests in flight");
    assertEquals(3, h.owner.connector().waitingHandshakes());
    for (int p = 0; p < 5; p++) {
      assertEquals(EndpointState.CONNECTING, h.owner.endpoint("p" + p + ":1@d0").state());
    }
    h.clock.advance(Duration.ofSeconds(1));
    OwnerHarness.Call first = h.channel.calls.get(0);
    first.reply().complete(OwnerHarness.acceptAs(first.request(), 1));
    h.run();
    assertEquals(3, h.channel.calls.size(), "the reply freed a slot for the oldest waiting");
    assertEquals("p2:1", h.channel.last().server());
    Endpoint third = h.owner.endpoint("p2:1@d0");
    assertEquals(h.clock.now, third.handshakeStartNanos(), "its deadline starts when it is sent");
    // p1's request (sent at the start) times out; p2 (sent 1 s later) still has time.
    h.clock.advance(Duration.ofMillis(4500));
    h.run();
    assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(slice(rec, "p1:1")));
    assertEquals(EndpointState.CONNECTING, third.state());
    assertEquals(4, h.channel.calls.size(), "p1's slot went to p3");
    assertEquals(1, h.owner.connector().waitingHandshakes(), "p4 still waits");
    assertEquals(1, rec.count(SliceStatus.OK) + rec.count(SliceStatus.HANDSHAKE_FAILED));
    assertEquals(0, rec.duplicates);
  }

  /**
   * A peer's request for an endpoint whose own request still waits for a slot is accepted, even
   * where this side's NIC path sorts lower (it would keep an attempt it had sent): nothing was
   * sent, so nothing is simultaneous, and the waiting attempt is never sent.
   */
  @Test
  void aPeerRequestForAWaitingEndpointIsAcceptedAndItsOwnRequestIsNeverSent() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config().withMaxHandshakesInFlight(1));
    Recorder rec = new Recorder();
    h.submit(rec, "p0:1", 1);
    List<Slice> toB = h.submit(rec, "b:1", 2);
    h.run();
    assertEquals(1, h.channel.calls.size());
    Endpoint waiting = h.owner.endpoint("b:1@d0");
    assertEquals(EndpointState.CONNECTING, waiting.state());
    ConnectReply reply = h.passive(requestFrom("b:1@d0", "a:1@d0", waiting.qpCount(), 9));
    assertEquals(ConnectStatus.ACCEPTED, reply.getStatus(), reply.getReason());
    assertSame(waiting, h.owner.endpoint("b:1@d0"));
    assertEquals(EndpointState.CONNECTED, waiting.state());
    assertEquals(0, h.owner.connector().waitingHandshakes());
    assertEquals(0, h.owner.metrics().simultaneousOpensKept());
    ConnectRequest ready =
        requestFrom("b:1@d0", "a:1@d0", waiting.qpCount(), 9).toBuilder()
            .setReadyGeneration(waiting.generation())
            .build();
    assertEquals(ConnectStatus.ACCEPTED, h.passive(ready).getStatus(), "the peer's ready-to-use");
    h.run();
    assertEquals(toB.size(), ((FakeVerbs.Qp) waiting.qp(0)).posted.size(), "its slices posted");
    for (Slice s : toB) {
      assertNull(rec.status.get(s), "not failed: " + s);
    }
    OwnerHarness.Call first = h.channel.calls.get(0);
    first.reply().complete(OwnerHarness.acceptAs(first.request(), 1));
    h.run();
    assertEquals(1, h.channel.calls.size(), "no request for b:1 was ever sent");
  }

  /**
   * Two owners, NIC paths a:1@d0 (lower) and b:1@d0 (higher), each with slices submitted to the
   * other: both send a connect request at once.
   */
  private record Crossing(OwnerHarness lower, OwnerHarness higher) {
    static Crossing submit(int fromLower, int fromHigher) {
      Crossing c =
          new Crossing(
              new OwnerHarness("a:1", OwnerHarness.config()),
              new OwnerHarness("b:1", OwnerHarness.config()));
      Recorder rec = new Recorder();
      c.lower.submit(rec, "b:1", fromLower);
      c.lower.run();
      c.higher.submit(rec, "a:1", fromHigher);
      c.higher.run();
      return c;
    }
  }

  private static Slice slice(Recorder rec, String server) {
    return rec.status.keySet().stream()
        .filter(s -> s.rail().peerServerName().equals(server))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ended slice to " + server));
  }

  /**
   * The passive side answers with the highest version both ranges hold: an older peer that sends no
   * range speaks 1, an older range 1..1 gives 1, a newer overlapping range 2..5 gives 2; a newer
   * disjoint range 3..5 is refused VERSION_MISMATCH naming both ranges, before any QP is made.
   */
  @Test
  void thePassiveSideUsesTheHighestCommonWireVersionOrRefusesTyped() {
    OwnerHarness h = new OwnerHarness("b:1", OwnerHarness.config());
    ConnectRequest none = requestFrom("a:1@d0", "b:1@d0", 1, 7);
    ConnectReply legacy = h.passive(none);
    assertEquals(ConnectStatus.ACCEPTED, legacy.getStatus());
    assertEquals(1, legacy.getWireVersion(), "a peer that sends no range speaks 1");
    assertEquals(WireVersions.SPOKEN.min(), legacy.getWireVersionMin());
    assertEquals(WireVersions.SPOKEN.max(), legacy.getWireVersionMax());
    assertEquals(1, h.owner.metrics().wireVersions().get("a:1@d0"));

    ConnectReply older = h.passive(withRange(requestFrom("c:1@d0", "b:1@d0", 1, 7), 1, 1));
    assertEquals(ConnectStatus.ACCEPTED, older.getStatus());
    assertEquals(1, older.getWireVersion());

    ConnectReply newer = h.passive(withRange(requestFrom("e:1@d0", "b:1@d0", 1, 7), 2, 5));
    assertEquals(ConnectStatus.ACCEPTED, newer.getStatus());
    assertEquals(2, newer.getWireVersion(), "the highest version both speak");
    assertEquals(2, h.owner.metrics().wireVersions().get("e:1@d0"));

    int qpsBefore = h.device.liveQps().size();
    ConnectReply disjoint = h.passive(withRange(requestFrom("f:1@d0", "b:1@d0", 1, 7), 3, 5));
    assertEquals(ConnectStatus.VERSION_MISMATCH, disjoint.getStatus());
    assertTrue(disjoint.getReason().contains("1..2"), disjoint.getReason());
    assertTrue(disjoint.getReason().contains("f:1@d0 speaks 3..5"), disjoint.getReason());
    assertEquals(qpsBefore, h.device.liveQps().size(), "no QP for a peer it cannot speak to");
    assertNull(h.owner.endpoint("f:1@d0"));
    assertEquals(1, h.owner.metrics().versionMismatches());
  }

  /**
   * The active side: a VERSION_MISMATCH reply fails the endpoint's slices with that code naming
   * both ranges; an ACCEPTED reply without a version (an older peer) connects at version 1; one
   * that names a version this side did not offer fails VERSION_MISMATCH too.
   */
  @Test
  void theActiveSideFailsTypedOnAVersionMismatchAndRecordsTheAgreedVersion() {
    OwnerHarness h = new OwnerHarness("b:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    List<Slice> slices = h.submit(rec, "a:1", 2);
    h.run();
    ConnectRequest sent = h.channel.last().request();
    assertEquals(WireVersions.SPOKEN.min(), sent.getWireVersionMin());
    assertEquals(WireVersions.SPOKEN.max(), sent.getWireVersionMax());
    h.channel
        .last()
        .reply()
        .complete(
            ConnectReply.newBuilder()
                .setStatus(ConnectStatus.VERSION_MISMATCH)
                .setReason("no common wire version")
                .setLocalNicPath("a:1@d0")
                .setWireVersionMin(3)
                .setWireVersionMax(4)
                .build());
    h.run();
    for (Slice s : slices) {
      assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(s));
      VteException cause = (VteException) rec.causes.get(s);
      assertEquals(ErrorCode.VERSION_MISMATCH, cause.code());
      assertTrue(cause.getMessage().contains("this node speaks 1..2"), cause.getMessage());
      assertTrue(cause.getMessage().contains("a:1@d0 speaks 3..4"), cause.getMessage());
    }

    OwnerHarness older = new OwnerHarness("b:1", OwnerHarness.config());
    older.submit(new Recorder(), "a:1", 1);
    older.run();
    older.channel.last().reply().complete(OwnerHarness.acceptAs(older.channel.last().request(), 3));
    older.run();
    Endpoint ep = older.owner.endpoint("a:1@d0");
    assertEquals(EndpointState.CONNECTED, ep.state());
    assertEquals(1, ep.wireVersion(), "a reply without a version is an older peer's: version 1");

    OwnerHarness broken = new OwnerHarness("b:1", OwnerHarness.config());
    Recorder brokenRec = new Recorder();
    List<Slice> brokenSlices = broken.submit(brokenRec, "a:1", 1);
    broken.run();
    broken
        .channel
        .last()
        .reply()
        .complete(
            OwnerHarness.acceptAs(broken.channel.last().request(), 3).toBuilder()
                .setWireVersion(3)
                .build());
    broken.run();
    VteException cause = (VteException) brokenRec.causes.get(brokenSlices.get(0));
    assertEquals(ErrorCode.VERSION_MISMATCH, cause.code());
    assertTrue(cause.getMessage().contains("chose wire version 3"), cause.getMessage());
  }

  private static ConnectRequest withRange(ConnectRequest request, int min, int max) {
    return request.toBuilder().setWireVersionMin(min).setWireVersionMax(max).build();
  }
}
