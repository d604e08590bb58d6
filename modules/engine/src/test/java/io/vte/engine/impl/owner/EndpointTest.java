package io.vte.engine.impl.owner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.engine.impl.owner.endpoint.Endpoint;
import io.vte.engine.impl.owner.endpoint.EndpointKey;
import io.vte.engine.impl.owner.endpoint.EndpointState;
import io.vte.engine.impl.owner.endpoint.EndpointStore;
import io.vte.engine.impl.owner.endpoint.WriteFence;
import io.vte.engine.impl.rail.Slice;
import io.vte.engine.impl.rail.SliceCallback;
import io.vte.engine.impl.rail.SliceStatus;
import io.vte.handshake.NicPath;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WrOpcode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The transition methods of {@link Endpoint}: each keeps the fields that belong together right. */
class EndpointTest {

  private static final NicPath PEER = NicPath.of("p:1", "d0");

  private static Endpoint endpoint(int qps) {
    return new Endpoint(EndpointKey.to(PEER), 5, qps, 100);
  }

  private static Slice slice(int index) {
    return new Slice(
        new SliceCallback() {
          @Override
          public void onSliceDone(Slice slice, int status, Throwable cause) {}

          @Override
          public boolean isAbandoned() {
            return false;
          }
        },
        index,
        WrOpcode.RDMA_WRITE,
        0,
        0,
        1);
  }

  @Test
  void workRequestsInFlightAreCountedPerQpAndInAllAndDriveTheStallAndIdleClocks() {
    Endpoint ep = endpoint(2);
    ep.connectedActive(1, 1);
    assertTrue(ep.isIdle());
    ep.posted(0, 3, 1_000);
    ep.posted(1, 1, 2_000);
    assertEquals(4, ep.outstanding());
    assertEquals(1, ep.qpRoom(0, 4), "QP 0 has 3 of 4 in flight");
    assertTrue(ep.hasQpRoom(4));
    assertFalse(ep.isIdle());
    assertEquals(500, ep.quietFor(1_500), "the stall clock starts when work first goes out");
    ep.completed(0, 3_000);
    assertEquals(0, ep.quietFor(3_000), "a completion is progress");
    assertEquals(0, ep.unusedFor(3_000), "and use");
    ep.forgotten(0);
    ep.forgotten(0);
    ep.completed(1, 4_000);
    assertEquals(0, ep.outstanding());
    assertEquals(4, ep.qpRoom(0, 4));
    assertTrue(ep.isIdle(), "nothing in flight, nothing queued");
    ep.posted(1, 1, 9_000);
    assertEquals(0, ep.quietFor(9_000), "the stall clock starts again from nothing in flight");
    ep.posted(1, 3, 9_500);
    assertFalse(ep.hasQpRoom(4) && ep.qpRoom(1, 4) > 0, "QP 1 is full");
    assertEquals(500, ep.quietFor(9_500), "more work does not reset it");
  }

  @Test
  void queuedSlicesAreUseAndGoToAReplacementInOrder() {
    Endpoint ep = endpoint(1);
    Slice a = slice(0);
    Slice b = slice(1);
    ep.queue(a, 700);
    ep.queue(b, 800);
    assertEquals(0, ep.unusedFor(800));
    assertEquals(2, ep.pendingCount());
    Endpoint replacement = endpoint(1);
    replacement.requeue(ep.takePending());
    assertFalse(ep.hasPending(), "none is left on the old one");
    assertSame(a, replacement.pollPending());
    assertSame(b, replacement.pollPending());
    assertNull(replacement.pollPending());
  }

  @Test
  void aPassiveEndpointPostsOnlyOnceThePeerIsReadyOrItsDeadlinePassed() {
    Endpoint ep = endpoint(1);
    ep.connectedPassive(42, 3, 10_000);
    assertEquals(EndpointState.CONNECTED, ep.state());
    assertEquals(42, ep.peerGeneration());
    assertEquals(3, ep.wireVersion());
    assertFalse(ep.canPost(), "the requester's QPs are still in INIT");
    assertFalse(ep.peerReadyOverdue(9_999));
    assertTrue(ep.peerReadyOverdue(10_000));
    ep.peerReady();
    assertTrue(ep.canPost());
    Endpoint active = endpoint(1);
    active.connectedActive(43, 3);
    assertTrue(active.canPost(), "the active side posts at once");
  }

  @Test
  void aSentRequestCancelsTheReaskAndTheRetryAndANewGenerationIsKept() {
    Endpoint ep = endpoint(1);
    ep.beginConnecting();
    ep.admitted(1_000, 5_000);
    assertEquals(1_000, ep.handshakeStartNanos());
    assertEquals(5_000, ep.handshakeDeadlineNanos());
    ep.requestSent();
    ep.reaskAt(2_000);
    ep.retryAt(3_000);
    assertFalse(ep.reaskDue(1_999));
    assertTrue(ep.reaskDue(2_000));
    assertTrue(ep.retryDue(3_000));
    ep.renew(6);
    ep.requestSent();
    assertEquals(6, ep.generation());
    assertEquals(2, ep.handshakeAttempts());
    assertFalse(ep.reaskDue(1_000_000), "the re-ask went with the request");
    assertFalse(ep.retryDue(1_000_000), "and so did the retry");
    assertEquals(0, ep.retryAtNanos());
  }

  @Test
  void qpsRetiredDuringAJobAreDestroyedWhenItIsBackAndOnlyOnce() {
    FakeVerbs.Device device = new FakeVerbs.Device("d0");
    var cq = device.createCq(8);
    var pd = device.allocPd();
    QueuePair[] made = {pd.createQp(new QpInitAttributes(cq, cq, 4, 1, 0))};
    Endpoint ep = endpoint(1);
    ep.qpJobStarted();
    ep.attach(made);
    assertNull(ep.detachQps(), "a job is on its QPs: destroyed when it is back");
    assertTrue(ep.qpJobDone(), "the job's return destroys them");
    assertFalse(ep.qpJobDone(), "once");
    QueuePair[] detached = ep.detachQps();
    assertNotNull(detached);
    assertSame(made[0], detached[0]);
    assertFalse(ep.hasQps());
    assertNull(ep.detachQps(), "never twice");
  }

  @Test
  void retiringKeepsHowItsWorkEndsAndItsFenceIsRaisedOnce() {
    Endpoint ep = endpoint(1);
    ep.connectedActive(1, 1);
    IllegalStateException cause = new IllegalStateException("x");
    ep.retire(SliceStatus.RAIL_DOWN, cause);
    assertTrue(ep.isDead());
    assertEquals(SliceStatus.RAIL_DOWN, ep.retireStatus());
    assertSame(cause, ep.retireCause());
    ep.awaitFlush(50);
    assertFalse(ep.flushOverdue(49));
    assertTrue(ep.flushOverdue(50));
    WriteFence fence = ep.raiseFence();
    assertNotNull(fence);
    assertNull(ep.raiseFence(), "one fence per endpoint");
    assertSame(fence, ep.fence());
  }

  @Test
  void theReadyLineTakesAnEndpointOnceAndRoundRobinCoversEveryQp() {
    Endpoint ep = endpoint(3);
    assertTrue(ep.enterReadyLine());
    assertFalse(ep.enterReadyLine(), "already in line");
    ep.leaveReadyLine();
    assertTrue(ep.enterReadyLine());
    assertEquals(List.of(0, 1, 2, 0), List.of(ep.nextQp(), ep.nextQp(), ep.nextQp(), ep.nextQp()));
  }

  @Test
  void onlyThePassiveEndOfALoopbackHasAKeyOfItsOwnAndTheStoreKeepsThemApart() {
    NicPath local = NicPath.of("a:1", "d0");
    assertEquals(EndpointKey.to(PEER), EndpointKey.passive(PEER, local), "a peer's request");
    EndpointKey loopback = EndpointKey.passive(local, local);
    assertTrue(loopback.loopbackPassive());
    assertNotEquals(EndpointKey.to(local), loopback);
    EndpointStore store = new EndpointStore(4);
    Endpoint active = new Endpoint(EndpointKey.to(local), 1, 0, 0);
    Endpoint passive = new Endpoint(loopback, 2, 0, 0);
    store.put(active);
    store.put(passive);
    assertEquals(2, store.size());
    assertSame(active, store.get(local), "slices to this NIC use the active end");
    assertSame(passive, store.get(loopback));
    assertTrue(store.holds(passive));
    assertTrue(store.remove(passive));
    assertSame(active, store.get(local));
    assertEquals(1, store.size());
  }
}
