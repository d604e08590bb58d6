package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Promise;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import io.vte.engine.impl.handshake.HandshakeBackoff;
import io.vte.engine.impl.owner.OwnerHarness.Recorder;
import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointKey;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.owner.endpoint.EndpointStore;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.handshake.proto.ConnectReply;
import io.vte.handshake.proto.ConnectRequest;
import io.vte.handshake.proto.ConnectStatus;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpState;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WrFlags;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The owner's duty cycle over fake verbs, a fake handshake channel and a fake clock. */
class OwnerTest {

  @Test
  void tinyCqNeverOverflowsUnderAThousandSlices() {
    OwnerHarness h =
        OwnerHarness.accepting(OwnerHarness.config().withQueueSizes(16, 64).withQpsPerEndpoint(2));
    Recorder rec = new Recorder();
    int total = 0;
    for (int peer = 0; peer < 4; peer++) {
      total += h.submit(rec, "p" + peer + ":1", 250).size();
    }
    Random random = new Random(42);
    for (int round = 0; round < 10_000 && rec.completed() < total; round++) {
      h.run();
      for (FakeVerbs.Qp qp : h.device.liveQps()) {
        qp.complete(random.nextInt(4), WcStatus.SUCCESS);
      }
    }
    h.run();
    assertEquals(total, rec.count(SliceStatus.OK), "every slice completes OK");
    assertEquals(0, rec.duplicates, "no slice completes twice");
    assertFalse(h.cq.overflowed, "signaled WRs in flight exceeded the CQ capacity");
    assertEquals(16, h.cq.maxUnpolled, "the CQ credit was used fully");
    assertEquals(0, h.owner.metrics().cqErrors());
    for (FakeVerbs.Qp qp : h.device.liveQps()) {
      assertTrue(qp.maxOutstanding <= 64);
      assertTrue(
          qp.posted.stream().allMatch(wr -> (wr[3] & WrFlags.SIGNALED) != 0),
          "every WR is signaled");
    }
    assertEquals(8, h.device.liveQps().size(), "4 endpoints x 2 QPs");
  }

  @Test
  void qpDepthLimitsEachQpAndSlicesSpreadOverQps() {
    OwnerHarness h =
        OwnerHarness.accepting(OwnerHarness.config().withQueueSizes(1024, 8).withQpsPerEndpoint(4));
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 100);
    h.run();
    List<FakeVerbs.Qp> qps = h.device.liveQps();
    assertEquals(4, qps.size());
    for (FakeVerbs.Qp qp : qps) {
      assertEquals(8, qp.outstanding.size(), "each QP filled to its depth, no more");
    }
    while (rec.completed() < 100) {
      h.device.completeAll(WcStatus.SUCCESS);
      h.run();
    }
    assertEquals(100, rec.count(SliceStatus.OK));
    int min = qps.stream().mapToInt(q -> q.posted.size()).min().orElseThrow();
    int max = qps.stream().mapToInt(q -> q.posted.size()).max().orElseThrow();
    assertTrue(max - min <= 8, "slices spread over the QPs: " + min + ".." + max);
  }

  @Test
  void staleReferenceNeverDeletesTheReplacement() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config());
    Recorder rec = new Recorder();
    for (int i = 0; i < 500; i++) {
      h.submit(rec, "b:1", 1);
      h.run();
      Endpoint old = h.owner.endpoint("b:1@d0");
      assertNotNull(old);
      int oldQp = old.qp(0).qpNum();
      h.device.completeAll(WcStatus.SUCCESS);
      h.run();
      // Retire through a QP-fatal event, then a new slice creates the replacement.
      h.proxy.execute(o -> o.onQpFatal(oldQp));
      h.run();
      assertNull(h.owner.endpoint("b:1@d0"));
      h.submit(rec, "b:1", 1);
      h.run();
      Endpoint replacement = h.owner.endpoint("b:1@d0");
      assertNotSame(old, replacement);
      // A late event and a delete through the old reference leave the replacement alone.
      h.proxy.execute(o -> o.onQpFatal(oldQp));
      h.run();
      assertSame(replacement, h.owner.endpoint("b:1@d0"));
      assertEquals(EndpointState.CONNECTED, replacement.state());
      h.device.completeAll(WcStatus.SUCCESS);
      h.run();
      h.proxy.execute(o -> o.onQpFatal(replacement.qp(0).qpNum()));
      h.run();
    }
    assertEquals(1000, rec.count(SliceStatus.OK));
    assertEquals(0, rec.duplicates);
    assertTrue(h.device.liveQps().isEmpty(), "every retired endpoint's QPs were destroyed");
    assertTrue(h.directory.liveQpNumbers().isEmpty(), "QP -> owner map emptied");
  }

  @Test
  void storeRemoveComparesIdentity() {
    EndpointStore store = new EndpointStore(8);
    NicPath p = NicPath.of("p:1", "d0");
    for (int i = 0; i < 10_000; i++) {
      EndpointKey key = new EndpointKey(p, i % 2 == 0);
      Endpoint old = new Endpoint(key, i * 2L, 0, 0);
      store.put(old);
      assertTrue(store.remove(old));
      Endpoint replacement = new Endpoint(key, i * 2L + 1, 0, 0);
      store.put(replacement);
      assertFalse(store.remove(old), "a stale reference removed the replacement");
      assertSame(replacement, store.get(key));
      assertTrue(store.remove(replacement));
    }
    assertEquals(0, store.size());
  }

  @Test
  void staleHandshakeReplyIsDroppedAndCounted() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    Slice first = h.submit(rec, "b:1", 1).get(0);
    h.run();
    OwnerHarness.Call firstCall = h.channel.last();
    h.clock.advance(Duration.ofSeconds(5));
    h.run();
    assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(first));
    assertEquals(ErrorCode.TIMED_OUT, ((VteException) rec.causes.get(first)).code());

    Slice second = h.submit(rec, "b:1", 1).get(0);
    h.run();
    Endpoint replacement = h.owner.endpoint("b:1@d0");
    assertEquals(EndpointState.CONNECTING, replacement.state());
    // The old attempt's reply arrives late: it must not connect the replacement.
    firstCall.reply().complete(OwnerHarness.acceptAs(firstCall.request(), 1));
    h.run();
    assertEquals(1, h.owner.metrics().staleRepliesDropped());
    assertEquals(EndpointState.CONNECTING, replacement.state());
    assertTrue(h.device.liveQps().stream().allMatch(q -> q.state == QpState.INIT));

    OwnerHarness.Call secondCall = h.channel.last();
    secondCall.reply().complete(OwnerHarness.acceptAs(secondCall.request(), 2));
    h.run();
    assertEquals(EndpointState.CONNECTED, replacement.state());
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    assertEquals(SliceStatus.OK, rec.status.get(second));
  }

  @Test
  void replyForAnAbandonedGenerationIsDropped() {
    OwnerHarness a = new OwnerHarness("b:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    a.submit(rec, "a:1", 1);
    a.run();
    OwnerHarness.Call call = a.channel.last();
    Endpoint ep = a.owner.endpoint("a:1@d0");
    long generation = ep.generation();
    // The peer (lower path) connects to us: we yield, bump the generation and accept on the same
    // QPs.
    ConnectReply accepted = a.passive(requestFrom("a:1@d0", "b:1@d0", 1, 42));
    assertEquals(ConnectStatus.ACCEPTED, accepted.getStatus());
    assertTrue(ep.generation() > generation);
    assertSame(ep, a.owner.endpoint("a:1@d0"));
    // Our own attempt's answer (the winner's SIMULTANEOUS_OPEN, or anything) is now stale.
    call.reply().complete(OwnerHarness.acceptAs(call.request(), 99));
    a.run();
    assertEquals(1, a.owner.metrics().staleRepliesDropped());
    assertEquals(42, ep.peerGeneration());
  }

  /**
   * Issue 3/7 (scenario 2 stall): our port flaps while the peer's own request is in flight. We
   * refuse that request (DEVICE_DOWN), the port comes back, new slices start an attempt, and the
   * peer, whose attempt is still pending when ours arrives, answers SIMULTANEOUS_OPEN. Its request
   * already came and went, so none will reach us: the owner must ask again well before the
   * handshake deadline, and every slice must end exactly once, OK.
   */
  @Test
  void portFlapLeavesASimultaneousOpenWithNoPeerRequestAndTheOwnerAsksAgain() {
    for (int round = 0; round < 50; round++) {
      OwnerHarness h = new OwnerHarness("z:1", OwnerHarness.config());
      Recorder rec = new Recorder();
      h.proxy.execute(o -> o.onPortDown(1));
      h.run();
      assertEquals(
          ConnectStatus.DEVICE_DOWN,
          h.passive(requestFrom("b:1@d0", "z:1@d0", 1, 10 + round)).getStatus());
      h.proxy.execute(o -> o.onPortUp(1));
      List<Slice> slices = h.submit(rec, "b:1", 8);
      h.run();
      assertEquals(1, h.channel.calls.size());
      Endpoint ep = h.owner.endpoint("b:1@d0");
      assertEquals(EndpointState.CONNECTING, ep.state());
      OwnerHarness.Call first = h.channel.last();
      first
          .reply()
          .complete(
              ConnectReply.newBuilder()
                  .setStatus(ConnectStatus.SIMULTANEOUS_OPEN)
                  .setLocalNicPath("b:1@d0")
                  .setReason("b keeps its attempt")
                  .build());
      h.run();
      assertEquals(1, h.channel.calls.size(), "first it waits for the peer's request");
      h.clock.advance(Duration.ofMillis(500));
      h.run();
      assertEquals(
          2,
          h.channel.calls.size(),
          "no request came within a tenth of the deadline: it asks again");
      OwnerHarness.Call second = h.channel.last();
      assertTrue(
          second.request().getGeneration() > first.request().getGeneration(),
          "with a newer generation");
      assertEquals(1, h.owner.metrics().handshakesReasked());
      second.reply().complete(OwnerHarness.acceptAs(second.request(), 20 + round));
      h.run();
      assertEquals(EndpointState.CONNECTED, ep.state());
      h.device.completeAll(WcStatus.SUCCESS);
      h.run();
      assertEquals(
          8, rec.count(SliceStatus.OK), "every slice completes, none waits for the deadline");
      assertEquals(0, rec.duplicates);
      assertEquals(
          h.owner.metrics().slicesAccepted(),
          h.owner.metrics().slicesCompleted() + h.owner.metrics().slicesFailed(),
          "every accepted slice ended");
      assertEquals(SliceStatus.OK, rec.status.get(slices.get(7)));
    }
  }

  @Test
  void simultaneousOpenAnswerIsAskedAgainUntilTheDeadlineThenFails() {
    OwnerHarness h = new OwnerHarness("z:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 3);
    h.run();
    // The peer keeps answering SIMULTANEOUS_OPEN and never connects: bounded by the 5 s deadline.
    for (int i = 0; i < 20 && rec.completed() == 0; i++) {
      int calls = h.channel.calls.size();
      h.channel
          .last()
          .reply()
          .complete(
              ConnectReply.newBuilder()
                  .setStatus(ConnectStatus.SIMULTANEOUS_OPEN)
                  .setLocalNicPath("b:1@d0")
                  .build());
      h.run();
      h.clock.advance(Duration.ofMillis(500));
      h.run();
      assertTrue(h.channel.calls.size() <= calls + 1, "at most one new request per wait");
    }
    assertEquals(
        3, rec.count(SliceStatus.HANDSHAKE_FAILED), "the deadline still bounds the attempt");
    assertEquals(
        ErrorCode.TIMED_OUT, ((VteException) rec.causes.values().iterator().next()).code());
    assertTrue(
        h.channel.calls.size() >= 9 && h.channel.calls.size() <= 10,
        "asked every 500 ms: " + h.channel.calls.size());
    assertEquals(0, h.owner.endpointCount());
    assertTrue(h.device.liveQps().isEmpty());
  }

  @Test
  void peerDeviceDownOrShuttingDownAnswerEndsSlicesPeerDeviceDown() {
    for (ConnectStatus refusal :
        new ConnectStatus[] {ConnectStatus.DEVICE_DOWN, ConnectStatus.SHUTTING_DOWN}) {
      OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
      Recorder rec = new Recorder();
      h.submit(rec, "b:1", 4);
      h.run();
      h.channel
          .last()
          .reply()
          .complete(
              ConnectReply.newBuilder()
                  .setStatus(refusal)
                  .setLocalNicPath("b:1@d0")
                  .setReason("port 1 of b:1@d0 is down")
                  .build());
      h.run();
      assertEquals(
          4,
          rec.count(SliceStatus.PEER_DEVICE_DOWN),
          refusal + ": the slices move to another rail, not a failure");
      VteException cause = (VteException) rec.causes.values().iterator().next();
      assertEquals(ErrorCode.DEVICE_UNAVAILABLE, cause.code());
      assertTrue(cause.getMessage().contains(refusal.name()), cause.getMessage());
      assertEquals(0, h.owner.endpointCount());
      assertTrue(h.device.liveQps().isEmpty());
    }
  }

  @Test
  void simultaneousOpenLowerSideRequestArrivesFirst() {
    simultaneousOpen(true);
  }

  @Test
  void simultaneousOpenHigherSideRequestArrivesFirst() {
    simultaneousOpen(false);
  }

  private void simultaneousOpen(boolean lowerReceivesFirst) {
    for (int i = 0; i < 50; i++) {
      OwnerHarness lower = new OwnerHarness("a:1", OwnerHarness.config());
      OwnerHarness higher = new OwnerHarness("b:1", OwnerHarness.config());
      Recorder rec = new Recorder();
      lower.submit(rec, "b:1", 3);
      higher.submit(rec, "a:1", 3);
      lower.run();
      higher.run();
      OwnerHarness.Call fromLower = lower.channel.last();
      OwnerHarness.Call fromHigher = higher.channel.last();
      if (lowerReceivesFirst) {
        ConnectReply r1 = lower.passive(fromHigher.request());
        assertEquals(
            ConnectStatus.SIMULTANEOUS_OPEN, r1.getStatus(), "the lower side keeps its attempt");
        fromHigher.reply().complete(r1);
        higher.run();
        ConnectReply r2 = higher.passive(fromLower.request());
        assertEquals(ConnectStatus.ACCEPTED, r2.getStatus(), "the higher side yields and accepts");
        fromLower.reply().complete(r2);
        lower.run();
      } else {
        ConnectReply r2 = higher.passive(fromLower.request());
        assertEquals(ConnectStatus.ACCEPTED, r2.getStatus());
        fromLower.reply().complete(r2);
        lower.run();
        ConnectReply r1 = lower.passive(fromHigher.request());
        assertEquals(
            ConnectStatus.SIMULTANEOUS_OPEN, r1.getStatus(), "an old request does not replace");
        fromHigher.reply().complete(r1);
        higher.run();
        assertEquals(1, higher.owner.metrics().staleRepliesDropped());
      }
      Endpoint l = lower.owner.endpoint("b:1@d0");
      Endpoint hi = higher.owner.endpoint("a:1@d0");
      assertEquals(EndpointState.CONNECTED, l.state());
      assertEquals(EndpointState.CONNECTED, hi.state());
      assertEquals(1, lower.owner.endpointCount());
      assertEquals(1, higher.owner.endpointCount());
      assertEquals(1, lower.device.liveQps().size());
      assertEquals(1, higher.device.liveQps().size());
      FakeVerbs.Qp lq = (FakeVerbs.Qp) l.qp(0);
      FakeVerbs.Qp hq = (FakeVerbs.Qp) hi.qp(0);
      assertEquals(hq.qpNum, lq.peer.qpNum(), "lower's QP talks to higher's QP");
      assertEquals(lq.qpNum, hq.peer.qpNum(), "higher's QP talks to lower's QP");
      assertEquals(hq.rts.sqPsn(), lq.peer.psn());
      assertEquals(lq.rts.sqPsn(), hq.peer.psn());
      assertEquals(1, lower.channel.readies.size(), "the active side's ready-to-use");
      assertEquals(
          ConnectStatus.ACCEPTED, higher.passive(lower.channel.readies.get(0)).getStatus());
      lower.run();
      higher.run();
      lower.device.completeAll(WcStatus.SUCCESS);
      higher.device.completeAll(WcStatus.SUCCESS);
      lower.run();
      higher.run();
      assertEquals(6, rec.count(SliceStatus.OK), "queued slices of both sides ran");
    }
  }

  @Test
  void handshakeDeadlineFailsOnlyThatEndpoint() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder live = new Recorder();
    Recorder dead = new Recorder();
    h.submit(live, "live:1", 1);
    h.run();
    h.channel.last().reply().complete(OwnerHarness.acceptAs(h.channel.last().request(), 1));
    List<Slice> deadSlices = h.submit(dead, "dead:1", 10);
    h.run();
    int liveSubmitted = 1;
    // 4.9 s of steady traffic on the live endpoint while the dead handshake is pending.
    for (int step = 0; step < 49; step++) {
      h.clock.advance(Duration.ofMillis(100));
      h.submit(live, "live:1", 5);
      liveSubmitted += 5;
      h.run();
      h.device.completeAll(WcStatus.SUCCESS);
      h.run();
      assertEquals(
          liveSubmitted,
          live.count(SliceStatus.OK),
          "live endpoint kept completing at step " + step);
      assertEquals(0, dead.completed(), "dead-peer slices still wait before the deadline");
    }
    h.clock.advance(Duration.ofMillis(100));
    h.run();
    for (Slice s : deadSlices) {
      assertEquals(SliceStatus.HANDSHAKE_FAILED, dead.status.get(s));
    }
    assertNull(h.owner.endpoint("dead:1@d0"));
    assertEquals(EndpointState.CONNECTED, h.owner.endpoint("live:1@d0").state());
    assertEquals(1, h.owner.metrics().handshakesFailed());
  }

  @Test
  void rejectedHandshakeFailsItsSlicesWithTheReason() {
    // A single attempt: retries of a refused connect are HandshakeRetryTest's.
    OwnerHarness h =
        new OwnerHarness(
            "a:1",
            OwnerHarness.config(),
            new HandshakeBackoff(
                HandshakeBackoff.FIRST_WAIT, HandshakeBackoff.MAX_WAIT, 1, new SplittableRandom()));
    Recorder rec = new Recorder();
    Slice s = h.submit(rec, "b:1", 1).get(0);
    h.run();
    h.channel
        .last()
        .reply()
        .complete(
            ConnectReply.newBuilder()
                .setStatus(ConnectStatus.UNKNOWN_DEVICE)
                .setReason("no device d0")
                .build());
    h.run();
    assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(s));
    VteException cause = (VteException) rec.causes.get(s);
    assertEquals(ErrorCode.HANDSHAKE_REJECTED, cause.code());
    assertTrue(cause.getMessage().contains("UNKNOWN_DEVICE"), cause.getMessage());
    assertTrue(h.device.liveQps().isEmpty());

    Slice t = h.submit(rec, "c:1", 1).get(0);
    h.run();
    h.channel
        .last()
        .reply()
        .fail(new VteException(ErrorCode.PEER_UNREACHABLE, "connection refused c:1"));
    h.run();
    assertEquals(SliceStatus.HANDSHAKE_FAILED, rec.status.get(t));
    assertEquals(ErrorCode.PEER_UNREACHABLE, ((VteException) rec.causes.get(t)).code());
  }

  @Test
  void qpFatalAccountsForEveryWorkRequestExactlyOnce() {
    OwnerHarness h =
        OwnerHarness.accepting(OwnerHarness.config().withQueueSizes(256, 32).withQpsPerEndpoint(2));
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 100);
    h.run();
    h.device.liveQps().get(0).complete(10, WcStatus.SUCCESS);
    h.run();
    int qpNum = h.owner.endpoint("b:1@d0").qp(1).qpNum();
    h.proxy.execute(o -> o.onQpFatal(qpNum));
    h.run();
    assertEquals(100, rec.completed(), "every slice accounted for");
    assertEquals(0, rec.duplicates);
    assertEquals(10, rec.count(SliceStatus.OK), "completed before the fault");
    assertEquals(
        90,
        rec.count(SliceStatus.ENDPOINT_RETIRED),
        "flushed (on both QPs) and queued slices are ENDPOINT_RETIRED");
    assertEquals(
        74,
        h.device.qps.stream().mapToInt(q -> q.posted.size()).sum(),
        "64 + 10 reposted as credits freed");
    assertTrue(h.device.liveQps().isEmpty());
    assertEquals(0, h.owner.outstanding());
    assertEquals(1, h.owner.metrics().qpFatalEvents());
  }

  /** WRITEs to b:1 whose first {@code ok} complete and the next one fails: the endpoint fences. */
  private record Fenced(OwnerHarness h, Recorder rec, List<Slice> slices) {
    static Fenced after(int writes, int ok) {
      OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config());
      h.channel.confirmDisconnects = false;
      Recorder rec = new Recorder();
      List<Slice> slices = h.submit(rec, "b:1", writes);
      h.run();
      FakeVerbs.Qp qp = h.device.liveQps().get(0);
      qp.complete(ok, WcStatus.SUCCESS);
      qp.complete(1, WcStatus.RETRY_EXC_ERR);
      h.run();
      return new Fenced(h, rec, slices);
    }
  }

  @Test
  void failedCompletionKeepsItsStatusAndFlushesTheRest() {
    Fenced f = Fenced.after(20, 5);
    OwnerHarness h = f.h();
    Recorder rec = f.rec();
    List<Slice> slices = f.slices();
    // the failed WRITEs wait for the peer to retire its end (the fence) before they go back
    assertEquals(1, h.channel.disconnects.size(), "one disconnect for the endpoint");
    ConnectRequest disconnect = h.channel.disconnects.get(0).request();
    assertEquals(1, disconnect.getDisconnectGeneration(), "names the peer's endpoint generation");
    assertEquals("a:1@d0", disconnect.getLocalNicPath());
    assertEquals("b:1@d0", disconnect.getPeerNicPath());
    assertNull(rec.status.get(slices.get(5)), "the failed WRITE is held until the peer answers");
    h.channel.disconnects.get(0).reply().complete(OwnerHarness.disconnected(disconnect));
    h.run();
    assertEquals(1, h.owner.metrics().writeFencesConfirmed());
    assertEquals(5, rec.count(SliceStatus.OK));
    assertEquals(WcStatus.RETRY_EXC_ERR.code(), rec.status.get(slices.get(5)));
    assertEquals(14, rec.count(SliceStatus.ENDPOINT_RETIRED));
    assertEquals(0, rec.duplicates);
    assertNull(h.owner.endpoint("b:1@d0"));
    assertTrue(h.device.liveQps().isEmpty());
  }

  @Test
  void aDisconnectThePeerCannotConfirmEndsTheHeldWritesFenceFailed() {
    Fenced f = Fenced.after(4, 0);
    OwnerHarness h = f.h();
    Recorder rec = f.rec();
    List<Slice> slices = f.slices();
    assertEquals(0, rec.completed(), "the posted WRITEs are held");
    h.channel
        .disconnects
        .get(0)
        .reply()
        .fail(new VteException(ErrorCode.PEER_UNREACHABLE, "connection refused"));
    h.run();
    assertEquals(4, rec.completed());
    assertEquals(4, rec.count(SliceStatus.FENCE_FAILED), "posted WRITEs are not retried");
    assertFalse(SliceStatus.isRetryable(SliceStatus.FENCE_FAILED));
    VteException cause = (VteException) rec.causes.get(slices.get(0));
    assertEquals(ErrorCode.PEER_UNREACHABLE, cause.code());
    assertTrue(cause.getMessage().contains("may still land"), cause.getMessage());
    assertEquals(0, rec.duplicates);
  }

  @Test
  void aPeersDisconnectRetiresOnlyTheEndpointOfItsGeneration() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config());
    ConnectReply accepted = h.passive(requestFrom("z:1@d0", "a:1@d0", 1, 7));
    assertEquals(ConnectStatus.ACCEPTED, accepted.getStatus());
    ConnectRequest other =
        ConnectRequest.newBuilder()
            .setLocalNicPath("z:1@d0")
            .setPeerNicPath("a:1@d0")
            .setGeneration(7)
            .setDisconnectGeneration(accepted.getGeneration() + 1)
            .build();
    assertEquals(ConnectStatus.DISCONNECTED, h.passive(other).getStatus());
    assertNotNull(h.owner.endpoint("z:1@d0"), "another generation's disconnect leaves it");
    ConnectRequest mine =
        other.toBuilder().setDisconnectGeneration(accepted.getGeneration()).build();
    assertEquals(ConnectStatus.DISCONNECTED, h.passive(mine).getStatus());
    h.run();
    assertNull(h.owner.endpoint("z:1@d0"));
    assertTrue(h.device.liveQps().isEmpty(), "its QPs are destroyed");
    assertEquals(1, h.owner.metrics().peerDisconnects());
  }

  @Test
  void portDownRetiresWithRailDownAndPortUpReconnects() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config().withQueueSizes(64, 16));
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 30);
    h.submit(rec, "c:1", 30);
    h.run();
    h.device.liveQps().get(0).complete(4, WcStatus.SUCCESS);
    h.run();
    h.proxy.execute(o -> o.onPortDown(1));
    h.run();
    assertEquals(60, rec.completed());
    assertEquals(0, rec.duplicates);
    int ok = rec.count(SliceStatus.OK);
    assertTrue(ok >= 4, "completed before the port went down: " + ok);
    assertEquals(
        60 - ok, rec.count(SliceStatus.RAIL_DOWN), "in-flight and queued slices are RAIL_DOWN");
    assertTrue(h.device.liveQps().isEmpty());
    Slice during = h.submit(rec, "b:1", 1).get(0);
    h.run();
    assertEquals(SliceStatus.RAIL_DOWN, rec.status.get(during));
    ConnectReply refused = h.passive(requestFrom("z:1@d0", "a:1@d0", 1, 1));
    assertEquals(ConnectStatus.DEVICE_DOWN, refused.getStatus());

    h.proxy.execute(o -> o.onPortUp(1));
    Slice after = h.submit(rec, "b:1", 1).get(0);
    h.run();
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    assertEquals(SliceStatus.OK, rec.status.get(after));
  }

  @Test
  void providerThatNeverFlushesIsAccountedAtTheFlushDeadline() {
    OwnerHarness h =
        OwnerHarness.accepting(OwnerHarness.config().withFlushDeadline(Duration.ofSeconds(1)));
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 10);
    h.run();
    FakeVerbs.Qp qp = h.device.liveQps().get(0);
    qp.flushOnError = false;
    long[] lateWrId = qp.posted.get(0);
    h.proxy.execute(o -> o.onQpFatal(qp.qpNum));
    h.run();
    assertEquals(0, rec.completed(), "in-flight WRs wait for their flush");
    assertEquals(1, h.owner.retiringCount());
    h.clock.advance(Duration.ofSeconds(1));
    h.run();
    assertEquals(10, rec.count(SliceStatus.ENDPOINT_RETIRED));
    assertEquals(10, h.owner.metrics().forcedFlushes());
    assertEquals(0, h.owner.retiringCount());
    // A completion that turns up after all is recognised as stray, not completed twice.
    h.cq.push(lateWrId[0], WcStatus.WR_FLUSH_ERR, qp.qpNum);
    h.run();
    assertEquals(0, rec.duplicates);
    assertEquals(1, h.owner.metrics().strayCompletions());
  }

  @Test
  void aStoreFullOfBusyEndpointsAdmitsMoreAndEvictsOnlyIdleOnesAsTheyGoIdle() {
    OwnerConfig config = OwnerHarness.config().withEndpointStoreCapacity(2);
    OwnerHarness h = new OwnerHarness("a:1", config);
    Recorder rec = new Recorder();
    h.submit(rec, "busy:1", 3);
    h.run();
    h.channel.last().reply().complete(OwnerHarness.acceptAs(h.channel.last().request(), 1));
    h.run();
    h.submit(rec, "connecting:1", 1);
    h.run();
    // every stored endpoint is busy: the third is admitted over the capacity, not refused
    Slice admitted = h.submit(rec, "third:1", 1).get(0);
    h.run();
    assertNull(rec.status.get(admitted), "the slice waits for its handshake instead of failing");
    assertNotNull(h.owner.endpoint("third:1@d0"));
    assertEquals(
        ConnectStatus.ACCEPTED, h.passive(requestFrom("q:1@d0", "a:1@d0", 1, 1)).getStatus());
    assertEquals(4, h.owner.endpointCount());
    assertEquals(2, h.owner.metrics().endpointStoreOverflows());
    assertEquals(0, h.owner.metrics().endpointsEvicted());

    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    // busy went idle: back towards the capacity, idle ones only, least recently used first
    assertNull(h.owner.endpoint("busy:1@d0"), "the now idle endpoint was evicted");
    assertNull(h.owner.endpoint("q:1@d0"), "the idle passive endpoint was evicted");
    assertNotNull(h.owner.endpoint("connecting:1@d0"), "the connecting endpoint was kept");
    assertNotNull(h.owner.endpoint("third:1@d0"), "the connecting endpoint was kept");
    assertEquals(2, h.owner.metrics().endpointsEvicted());
    assertEquals(2, h.owner.endpointCount());
    assertEquals(3, rec.count(SliceStatus.OK));
    assertEquals(0, rec.duplicates);
  }

  @Test
  void aPeerWhoseQpIsGoneRetiresTheEndpointAndItsSlicesGoAgainAsFlushed() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 2);
    h.run();
    h.channel.last().reply().complete(OwnerHarness.acceptAs(h.channel.last().request(), 1));
    h.run();
    h.device.completeAll(WcStatus.REM_ABORT_ERR);
    h.run();
    // not the slice's fault nor the rail's: ENDPOINT_RETIRED (retried with the extra allowance)
    assertEquals(2, rec.count(SliceStatus.ENDPOINT_RETIRED));
    assertEquals(
        ErrorCode.PEER_UNREACHABLE, ((VteException) rec.causes.values().iterator().next()).code());
    assertNull(h.owner.endpoint("b:1@d0"), "the endpoint was retired: the next slice reconnects");
    assertEquals(0, rec.duplicates);
  }

  /**
   * rdma_rxe retries forever at retry count 7 and drops packets to a QP that no longer exists
   * without a NAK: a work request to a peer whose QP went (its port went down and it retired the
   * endpoint) then never completes. Past timeout x (retry count + 2) without a completion the owner
   * retires the endpoint, and its slices go again as flushed ones.
   */
  @Test
  void aConnectedEndpointWhoseWorkRequestsNeverCompleteIsRetiredPastTheRcFailureTime() {
    OwnerConfig config = OwnerHarness.config();
    OwnerHarness h = OwnerHarness.accepting(config);
    Duration stall =
        Duration.ofNanos(
            new RtsAttributes(0, config.qpTimeout(), 0, 0).timeoutNanos()
                * (config.qpRetryCount() + 2L));
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 3);
    h.run();
    assertEquals(3, h.owner.outstanding(), "posted");
    h.clock.advance(stall.minusMillis(1));
    h.run();
    assertEquals(0, rec.completed(), "within the RC failure time the work requests wait");
    assertNotNull(h.owner.endpoint("b:1@d0"));
    // one completes: the endpoint makes progress, and the limit counts from there
    h.device.liveQps().get(0).complete(1, WcStatus.SUCCESS);
    h.run();
    h.clock.advance(stall.minusMillis(1));
    h.run();
    assertNotNull(h.owner.endpoint("b:1@d0"), "progress within the limit keeps it");
    h.clock.advance(stall.dividedBy(2));
    h.run();
    h.run();
    assertNull(h.owner.endpoint("b:1@d0"), "a stuck endpoint is retired");
    assertEquals(1, h.owner.metrics().endpointsStalled());
    assertEquals(2, rec.count(SliceStatus.ENDPOINT_RETIRED));
    assertEquals(
        ErrorCode.PEER_UNREACHABLE, ((VteException) rec.causes.values().iterator().next()).code());
    assertEquals(0, h.owner.outstanding());
    assertEquals(0, rec.duplicates);
  }

  @Test
  void abandonedSlicesAreDroppedUnposted() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder canceled = new Recorder();
    Recorder kept = new Recorder();
    h.submit(canceled, "b:1", 5);
    h.submit(kept, "b:1", 5);
    h.run();
    canceled.abandoned = true;
    h.channel.last().reply().complete(OwnerHarness.acceptAs(h.channel.last().request(), 1));
    h.run();
    assertEquals(5, canceled.count(SliceStatus.ABANDONED));
    FakeVerbs.Qp qp = h.device.liveQps().get(0);
    assertEquals(5, qp.posted.size(), "only the live request's slices were posted");
    Slice late = h.submit(canceled, "b:1", 1).get(0);
    h.run();
    assertEquals(SliceStatus.ABANDONED, canceled.status.get(late));
    h.device.completeAll(WcStatus.SUCCESS);
    h.run();
    assertEquals(5, kept.count(SliceStatus.OK));
  }

  @Test
  void passiveRequestReplacesOnlyWithANewerGeneration() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    ConnectReply first = h.passive(requestFrom("b:1@d0", "a:1@d0", 2, 10));
    assertEquals(ConnectStatus.ACCEPTED, first.getStatus());
    assertEquals(2, first.getQpsCount());
    ConnectRequest ready =
        requestFrom("b:1@d0", "a:1@d0", 2, 10).toBuilder()
            .setReadyGeneration(first.getGeneration())
            .build();
    assertEquals(ConnectStatus.ACCEPTED, h.passive(ready).getStatus());
    Endpoint ep = h.owner.endpoint("b:1@d0");
    h.submit(rec, "b:1", 4);
    h.run();
    assertEquals(
        ConnectStatus.SIMULTANEOUS_OPEN,
        h.passive(requestFrom("b:1@d0", "a:1@d0", 2, 10)).getStatus());
    assertSame(ep, h.owner.endpoint("b:1@d0"));
    ConnectReply newer = h.passive(requestFrom("b:1@d0", "a:1@d0", 2, 11));
    assertEquals(ConnectStatus.ACCEPTED, newer.getStatus());
    assertNotSame(ep, h.owner.endpoint("b:1@d0"));
    assertTrue(newer.getGeneration() > first.getGeneration());
    h.run();
    assertEquals(
        4,
        rec.count(SliceStatus.ENDPOINT_RETIRED),
        "in-flight WRs of the replaced endpoint flushed");
    assertEquals(2, h.device.liveQps().size());
  }

  @Test
  void invalidAndClosingPassiveRequestsAreRejectedByName() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    ConnectRequest badGid =
        requestFrom("b:1@d0", "a:1@d0", 1, 1).toBuilder()
            .setGid(com.google.protobuf.ByteString.copyFrom(new byte[3]))
            .build();
    ConnectReply r = h.passive(badGid);
    assertEquals(ConnectStatus.INVALID_REQUEST, r.getStatus());
    assertTrue(r.getReason().contains("gid"), r.getReason());
    ConnectReply noQps = h.passive(requestFrom("b:1@d0", "a:1@d0", 0, 1));
    assertEquals(ConnectStatus.INVALID_REQUEST, noQps.getStatus());
    assertTrue(noQps.getReason().contains("qps"), noQps.getReason());
    ConnectReply badMtu =
        h.passive(requestFrom("b:1@d0", "a:1@d0", 1, 1).toBuilder().setMtu(1000).build());
    assertTrue(badMtu.getReason().contains("1000"), badMtu.getReason());
    assertEquals(0, h.owner.endpointCount());

    h.owner.beginClose(Promise.promise());
    assertEquals(
        ConnectStatus.SHUTTING_DOWN, h.passive(requestFrom("b:1@d0", "a:1@d0", 1, 1)).getStatus());
  }

  @Test
  void closeWithWorkInFlightCompletesEverySlice() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config().withQueueSizes(32, 16));
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 50);
    h.submit(rec, "c:1", 1);
    h.run();
    h.channel.autoAccept = false;
    h.submit(rec, "d:1", 3);
    h.run();
    h.device.liveQps().get(0).complete(3, WcStatus.SUCCESS);
    Promise<Void> closed = Promise.promise();
    h.proxy.execute(o -> o.beginClose(closed));
    h.run();
    assertTrue(closed.future().succeeded());
    assertEquals(54, rec.completed());
    assertEquals(3, rec.count(SliceStatus.OK));
    assertEquals(51, rec.count(SliceStatus.ENGINE_CLOSED));
    assertEquals(0, h.owner.outstanding());
    assertTrue(h.device.liveQps().isEmpty());
    Slice late = h.submit(rec, "b:1", 1).get(0);
    h.run();
    assertEquals(SliceStatus.ENGINE_CLOSED, rec.status.get(late));
    h.proxy.close();
    Slice afterProxyClose = h.slice(rec, "b:1", 99);
    h.proxy.submit(afterProxyClose);
    assertEquals(SliceStatus.ENGINE_CLOSED, rec.status.get(afterProxyClose));
  }

  @Test
  void postFailureCompletesTheRefusedSlicesAndRetires() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 1);
    h.run();
    FakeVerbs.Qp qp = h.device.liveQps().get(0);
    qp.state = QpState.ERR;
    qp.flushOnError = true;
    Slice refused = h.submit(rec, "b:1", 1).get(0);
    h.run();
    assertEquals(SliceStatus.POST_FAILED, rec.status.get(refused));
    assertTrue(
        rec.causes.get(refused).getMessage().contains(PostStatus.name(PostStatus.INVALID_STATE)));
    assertEquals(2, rec.completed());
    assertEquals(0, rec.duplicates);
  }

  @Test
  void wakesOncePerBatch() {
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Recorder rec = new Recorder();
    for (int i = 0; i < 100; i++) {
      h.proxy.offer(h.slice(rec, "b:1", i));
    }
    h.proxy.wake();
    h.proxy.wake();
    assertEquals(1, h.wakes);
    h.proxy.clearWake();
    h.run();
    h.proxy.submit(h.slice(rec, "b:1", 100));
    assertEquals(2, h.wakes);
  }

  @Test
  void ownerConfigRejectsZeroWorkersByName() {
    VteException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            VteException.class, () -> OwnerTestConfig.defaults().withWorkersPerContext(0));
    assertEquals(ErrorCode.INVALID_CONFIGURATION, e.code());
    assertTrue(
        e.getMessage().contains("workersPerContext") && e.getMessage().contains("0"),
        e.getMessage());
  }

  @Test
  void ownerIndexIsStableAndTheSameForSplitAndJoinedPaths() {
    int[] counts = new int[4];
    for (int i = 0; i < 4000; i++) {
      String server = "10.0.0." + (i % 250) + ":" + (7000 + i);
      int split = NicPath.of(server, "d" + (i % 3)).ownerIndex(4);
      assertEquals(split, NicPath.parse(server + "@d" + (i % 3)).ownerIndex(4));
      counts[split]++;
    }
    for (int c : counts) {
      assertTrue(c > 700, "owners get a fair share: " + java.util.Arrays.toString(counts));
    }
    assertEquals(
        NicPath.parse("host:1@mlx5_0").ownerIndex(7), NicPath.of("host:1", "mlx5_0").ownerIndex(7));
  }

  @Test
  void cqErrorRetiresEverythingOnItAndIsCounted() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 10);
    h.submit(rec, "c:1", 10);
    h.run();
    h.cq.inError = true;
    h.run();
    assertEquals(
        20,
        rec.count(SliceStatus.ENDPOINT_RETIRED),
        "every WR accounted for although no flush can come");
    assertEquals(0, rec.duplicates);
    assertEquals(1, h.owner.metrics().cqErrors());
    assertEquals(0, h.owner.outstanding());
    assertTrue(h.device.liveQps().isEmpty());
    Slice after = h.submit(rec, "b:1", 1).get(0);
    h.run();
    assertEquals(SliceStatus.RAIL_DOWN, rec.status.get(after), "a broken CQ takes no more work");
  }

  @Test
  void aCqThatCannotBeArmedIsACqErrorAndTakesNoMoreWork() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 10);
    h.run();
    h.owner.armCompletionNotification();
    assertEquals(0, h.owner.metrics().cqErrors(), "an armed CQ is no error");
    h.cq.armFails = true;
    h.owner.armCompletionNotification();
    assertEquals(1, h.owner.metrics().cqErrors(), "the owner would never be woken again");
    h.run(); // the posted WRITEs come back once the peer confirmed the disconnect
    assertEquals(10, rec.count(SliceStatus.ENDPOINT_RETIRED), "every WR accounted for");
    assertTrue(
        rec.causes.values().stream()
            .allMatch(c -> c.getMessage().contains("could not be armed for notification")),
        String.valueOf(rec.causes.values()));
    assertEquals(0, h.owner.outstanding());
    assertTrue(h.device.liveQps().isEmpty());
    Slice after = h.submit(rec, "b:1", 1).get(0);
    h.run();
    assertEquals(SliceStatus.RAIL_DOWN, rec.status.get(after));
    assertTrue(
        rec.causes.get(after).getMessage().contains("is in error"),
        rec.causes.get(after).getMessage());
  }

  @Test
  void deviceFatalRetiresEveryEndpointWithRailDown() {
    OwnerHarness h = OwnerHarness.accepting(OwnerHarness.config());
    Recorder rec = new Recorder();
    h.submit(rec, "b:1", 5);
    h.submit(rec, "c:1", 5);
    h.run();
    h.proxy.execute(Owner::onDeviceFatal);
    h.run();
    assertEquals(10, rec.count(SliceStatus.RAIL_DOWN));
    assertEquals(0, h.owner.endpointCount());
    assertTrue(h.device.liveQps().isEmpty());
  }

  @Test
  void steadyStateAllocationPerSliceIsSmall() {
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        mx instanceof com.sun.management.ThreadMXBean, "needs per-thread allocation counters");
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) mx;
    OwnerHarness h =
        OwnerHarness.accepting(
            OwnerHarness.config().withQueueSizes(1024, 256).withQpsPerEndpoint(2));
    h.device.autoComplete = true;
    h.device.recordPosted = false;
    long[] done = new long[1];
    io.vte.engine.impl.rail.SliceCallback counting =
        new io.vte.engine.impl.rail.SliceCallback() {
          @Override
          public void onSliceDone(Slice slice, int st, Throwable cause) {
            if (st == SliceStatus.OK) {
              done[0]++;
            }
          }

          @Override
          public boolean isAbandoned() {
            return false;
          }
        };
    Slice[] slices = new Slice[256];
    for (int i = 0; i < slices.length; i++) {
      slices[i] = h.slice(counting, "b:1", i);
    }
    int rounds = 400;
    long measured = 0;
    long bytes = 0;
    for (int r = 0; r < rounds; r++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (Slice s : slices) {
        h.proxy.offer(s);
      }
      h.run();
      long after = threads.getCurrentThreadAllocatedBytes();
      if (r >= rounds / 2) {
        bytes += after - before;
        measured += slices.length;
      }
    }
    assertEquals((long) rounds * slices.length, done[0], "every slice completed OK");
    double perSlice = (double) bytes / measured;
    System.out.printf(
        "owner layer steady-state allocation: %.1f bytes per slice (queue node included)%n",
        perSlice);
    assertTrue(perSlice <= 64, "owner allocates " + perSlice + " bytes per slice");
  }

  @Test
  void passiveRequestForAnUnknownDeviceIsRejectedByName() {
    PassiveConnectHandler handler = new PassiveConnectHandler(List.of());
    ConnectReply reply = handler.connect(requestFrom("b:1@d0", "a:1@mlx9", 1, 1)).result();
    assertEquals(ConnectStatus.UNKNOWN_DEVICE, reply.getStatus());
    assertTrue(reply.getReason().contains("a:1@mlx9"), reply.getReason());
    ConnectReply noDevice = handler.connect(requestFrom("b:1@d0", "no-at-sign", 1, 1)).result();
    assertEquals(ConnectStatus.UNKNOWN_DEVICE, noDevice.getStatus());
  }

  @Test
  void routerRejectsASliceWithoutAUsableRailByName() {
    OwnerRouter router = new OwnerRouter(List.of());
    Recorder rec = new Recorder();
    OwnerHarness h = new OwnerHarness("a:1", OwnerHarness.config());
    Slice badIndex = h.slice(rec, "b:1", 0);
    VteException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            VteException.class, () -> router.submit(badIndex));
    assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
    assertTrue(e.getMessage().contains("local device index 0"), e.getMessage());
    Slice noRail = new Slice(rec, 1, io.vte.verbs.WrOpcode.RDMA_READ, 1, 2, 3);
    VteException e2 =
        org.junit.jupiter.api.Assertions.assertThrows(
            VteException.class, () -> router.submitAll(List.of(noRail)));
    assertTrue(e2.getMessage().contains("no rail"), e2.getMessage());
    assertEquals(0, rec.completed(), "nothing was queued or completed");
  }

  static ConnectRequest requestFrom(String from, String to, int qps, long generation) {
    ConnectRequest.Builder b =
        ConnectRequest.newBuilder()
            .setLocalNicPath(from)
            .setPeerNicPath(to)
            .setGid(
                com.google.protobuf.ByteString.copyFrom(
                    new io.vte.verbs.Gid(0, 0xffff7f000009L).toBytes()))
            .setLid(9000)
            .setMtu(4096)
            .setGeneration(generation);
    for (int i = 0; i < qps; i++) {
      b.addQps(io.vte.handshake.proto.QpInfo.newBuilder().setQpNum(9000 + i).setPsn(5 + i));
    }
    return b.build();
  }
}
