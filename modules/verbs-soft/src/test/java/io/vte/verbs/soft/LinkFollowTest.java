package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.testkit.Await;
import io.vte.verbs.AccessFlags;
import io.vte.verbs.AsyncEvent;
import io.vte.verbs.AsyncEventType;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PortState;
import io.vte.verbs.PostStatus;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WcStatus;
import io.vte.verbs.soft.impl.NicSpin;
import io.vte.verbs.soft.impl.SoftDevice;
import io.vte.verbs.soft.impl.link.LinkProbe;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A soft device follows the link under its address, as a real NIC's port follows its cable: driven
 * by a fake {@link LinkProbe} whose answer the test flips, link down must close the port exactly as
 * the fault injector's port-down does (PORT_ERR once, port DOWN, outstanding work completed once
 * each with an error, new connections refused), link up must raise PORT_ACTIVE and carry traffic
 * again, and the injector and the link must combine.
 */
class LinkFollowTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);

  /** A link the test sets up or down; counts polls and remembers the polling threads. */
  static final class FakeLink implements LinkProbe {
    volatile boolean up;

    /** Answers for the next polls, one each, before {@link #up} is answered again. */
    final Queue<Boolean> script = new ConcurrentLinkedQueue<>();

    final AtomicInteger polls = new AtomicInteger();
    final Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();

    FakeLink(boolean up) {
      this.up = up;
    }

    @Override
    public boolean isUp() {
      polls.incrementAndGet();
      threads.add(Thread.currentThread().getName());
      Boolean scripted = script.poll();
      return scripted != null ? scripted : up;
    }
  }

  /** Two soft devices on loopback, each watching its own fake link, with a PD each. */
  private static final class Pair implements AutoCloseable {
    final FakeLink[] links = {new FakeLink(true), new FakeLink(true)};
    final SoftDevice[] devs = new SoftDevice[2];
    final ProtectionDomain[] pds = new ProtectionDomain[2];
    final List<List<AsyncEvent>> events =
        List.of(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());

    Pair() throws Exception {
      for (int i = 0; i < 2; i++) {
        devs[i] =
            SoftDevice.open(
                "lw" + i,
                InetAddress.getByName("127.0.0." + (i + 1)),
                0,
                4096,
                1 << 30,
                0,
                NicSpin.none(),
                links[i],
                () -> {});
        links[i].threads
            .clear(); // open reads the link once on the opening thread; after that only the NIC
        // does
        devs[i].setAsyncEventHandler(events.get(i)::add);
        pds[i] = devs[i].allocPd();
      }
    }

    QueuePair connected(CompletionQueue cq, int depth) {
      QueuePair a = pds[0].createQp(new QpInitAttributes(cq, cq, depth, depth, 64));
      CompletionQueue peerCq = devs[1].createCq(16);
      QueuePair b = pds[1].createQp(new QpInitAttributes(peerCq, peerCq, 8, 8, 64));
      Fabric.connect(a, devs[0], b, devs[1], Fabric.FAST);
      return a;
    }

    long count(int side, AsyncEventType type) {
      return events.get(side).stream().filter(e -> e.type() == type).count();
    }

    void awaitPort(int side, PortState state) {
      Await.untilEquals(
          "port of lw" + side, DEADLINE, state, () -> devs[side].queryPort(1).state());
    }

    @Override
    public void close() {
      devs[0].close();
      devs[1].close();
    }
  }

  @Test
  void linkDownMidStreamClosesThePortAndFailsOutstandingWorkOnceAndLinkUpBringsItBack()
      throws Exception {
    for (int s = 0; s < 2; s++) { // the requester's link, then the responder's
      int side = s;
      try (Pair p = new Pair()) {
        int n = 64;
        CompletionQueue cq = p.devs[0].createCq(n);
        QueuePair a = p.connected(cq, n);
        MemoryRegion src =
            p.pds[0].registerMemory(ByteBuffer.allocateDirect(1 << 20), AccessFlags.LOCAL_WRITE);
        MemoryRegion dst =
            p.pds[1].registerMemory(ByteBuffer.allocateDirect(1 << 20), AccessFlags.ALL_REMOTE);
        // every request frame waits 50 ms, so most of the 64 writes are outstanding when the link
        // goes down
        p.devs[0].faults().setFrameFaults(0, 1.0, Duration.ofMillis(50).toNanos(), side);
        assertEquals(PostStatus.OK, a.postSend(Fabric.writes(n, src, dst, 1 << 20)));
        List<Fabric.Wc> all = new ArrayList<>(Fabric.await(cq, 1, DEADLINE));
        p.links[side].up = false;
        p.awaitPort(side, PortState.DOWN);
        all.addAll(Fabric.await(cq, n - all.size(), DEADLINE));
        Set<Long> seen = new HashSet<>();
        int errors = 0;
        for (Fabric.Wc wc : all) {
          assertTrue(seen.add(wc.wrId()), "completed twice: " + wc.wrId());
          if (wc.status() != WcStatus.SUCCESS.code()) {
            errors++;
            assertTrue(
                wc.status() == WcStatus.RETRY_EXC_ERR.code()
                    || wc.status() == WcStatus.WR_FLUSH_ERR.code(),
                wc.toString());
          }
        }
        assertEquals(n, seen.size());
        assertTrue(errors > 0, "work outstanding at link down must fail");
        Fabric.assertQuiet(cq, Duration.ofMillis(100));
        assertEquals(1, p.count(side, AsyncEventType.PORT_ERR), p.events.get(side).toString());
        assertEquals(0, p.count(side, AsyncEventType.PORT_ACTIVE), p.events.get(side).toString());
        assertEquals(
            PortState.ACTIVE,
            p.devs[1 - side].queryPort(1).state(),
            "the other device keeps its port");

        // while down, a new connection gets nowhere: the write fails retry-exceeded
        p.devs[0].faults().clearFrameFaults();
        CompletionQueue cq2 = p.devs[0].createCq(16);
        assertEquals(PostStatus.OK, p.connected(cq2, 8).postSend(Fabric.writes(1, src, dst, 8)));
        assertEquals(WcStatus.RETRY_EXC_ERR.code(), Fabric.await(cq2, 1, DEADLINE).get(0).status());

        p.links[side].up = true;
        Await.until(
            "PORT_ACTIVE on lw" + side,
            DEADLINE,
            () -> p.count(side, AsyncEventType.PORT_ACTIVE) == 1);
        assertEquals(PortState.ACTIVE, p.devs[side].queryPort(1).state());
        assertEquals(1, p.count(side, AsyncEventType.PORT_ERR));
        assertEquals(PostStatus.OK, p.connected(cq2, 8).postSend(Fabric.writes(1, src, dst, 8)));
        assertEquals(WcStatus.SUCCESS.code(), Fabric.await(cq2, 1, DEADLINE).get(0).status());
        assertEquals(
            Set.of("vte-soft-nic-lw" + side),
            p.links[side].threads,
            "after open, polled by the NIC thread only");
      }
    }
  }

  @Test
  void thePortIsUpOnlyWhenBothTheLinkAndTheFaultInjectorSayUp() throws Exception {
    try (Pair p = new Pair()) {
      FakeLink link = p.links[0];
      SoftDevice d = p.devs[0];
      link.up = false;
      p.awaitPort(0, PortState.DOWN);
      d.faults().portDown(1); // already down: no second event
      link.up = true;
      awaitPolls(link, 3); // the link is up again and seen, the injector still holds the port
      assertEquals(PortState.DOWN, d.queryPort(1).state());
      d.faults().portUp(1);
      p.awaitPort(0, PortState.ACTIVE);

      d.faults().portDown(1);
      p.awaitPort(0, PortState.DOWN);
      link.up = false;
      awaitPolls(link, 3);
      d.faults().portUp(1); // the link is still down
      awaitPolls(link, 3);
      assertEquals(PortState.DOWN, d.queryPort(1).state());
      link.up = true;
      p.awaitPort(0, PortState.ACTIVE);

      Await.until("events delivered", DEADLINE, () -> p.events.get(0).size() == 4);
      assertEquals(
          List.of(
              AsyncEventType.PORT_ERR,
              AsyncEventType.PORT_ACTIVE,
              AsyncEventType.PORT_ERR,
              AsyncEventType.PORT_ACTIVE),
          p.events.get(0).stream().map(AsyncEvent::type).toList());
      assertTrue(p.events.get(1).isEmpty(), p.events.get(1).toString());
    }
  }

  @Test
  void linkDownCountsAtOnceButLinkUpOnlyAfterItHeldForSeveralPolls() throws Exception {
    try (Pair p = new Pair()) {
      FakeLink link = p.links[0];
      link.script.add(false); // one poll down is enough
      p.awaitPort(0, PortState.DOWN);
      // ups shorter than the settle count, then down again: the port must not come up in between
      for (int run = 1; run < SoftDevice.LINK_UP_POLLS; run++) {
        for (int i = 0; i < run; i++) {
          link.script.add(true);
        }
        link.script.add(false);
      }
      link.up = false;
      Await.until("the flapping script polled", DEADLINE, link.script::isEmpty);
      awaitPolls(link, 2);
      assertEquals(PortState.DOWN, p.devs[0].queryPort(1).state());
      int pollsAtUp = link.polls.get();
      AtomicInteger pollsAtEvent = new AtomicInteger();
      p.devs[0].setAsyncEventHandler(
          e -> {
            p.events.get(0).add(e);
            pollsAtEvent.compareAndSet(0, link.polls.get());
          });
      link.up = true;
      p.awaitPort(0, PortState.ACTIVE);
      Await.until("PORT_ACTIVE delivered", DEADLINE, () -> pollsAtEvent.get() > 0);
      assertTrue(
          pollsAtEvent.get() - pollsAtUp >= SoftDevice.LINK_UP_POLLS,
          "PORT_ACTIVE after " + (pollsAtEvent.get() - pollsAtUp) + " polls up");
      assertEquals(
          List.of(AsyncEventType.PORT_ERR, AsyncEventType.PORT_ACTIVE),
          p.events.get(0).stream().map(AsyncEvent::type).toList());
    }
  }

  @Test
  void aDeviceOpenedOnADownLinkStartsDownAndComesUpWithTheLink() throws Exception {
    FakeLink link = new FakeLink(false);
    List<AsyncEvent> events = new CopyOnWriteArrayList<>();
    SoftDevice d =
        SoftDevice.open(
            "lw-late",
            InetAddress.getByName("127.0.0.3"),
            0,
            4096,
            1 << 30,
            0,
            NicSpin.none(),
            link,
            () -> {});
    try {
      d.setAsyncEventHandler(events::add);
      assertEquals(PortState.DOWN, d.queryPort(1).state());
      awaitPolls(link, 3);
      assertTrue(events.isEmpty(), "no event while the link stays as it was: " + events);
      link.up = true;
      Await.untilEquals("port up", DEADLINE, PortState.ACTIVE, () -> d.queryPort(1).state());
      Await.until("PORT_ACTIVE", DEADLINE, () -> events.size() == 1);
      assertEquals(AsyncEventType.PORT_ACTIVE, events.get(0).type());
    } finally {
      d.close();
    }
  }

  @Test
  void loopbackAndWildcardHaveNoLinkAndAnAddressOnNoInterfaceIsDown() throws Exception {
    assertSame(LinkProbe.ALWAYS_UP, LinkProbe.forAddress(InetAddress.getByName("127.0.0.7")));
    assertSame(LinkProbe.ALWAYS_UP, LinkProbe.forAddress(InetAddress.getByName("0.0.0.0")));
    assertFalse(LinkProbe.ALWAYS_UP.watches());
    // 198.18.255.253: the benchmarking range, on no interface of this namespace
    LinkProbe nowhere = LinkProbe.forAddress(InetAddress.getByName("198.18.255.253"));
    assertTrue(nowhere.watches());
    assertFalse(nowhere.isUp(), nowhere.toString());
  }

  private static void awaitPolls(FakeLink link, int more) {
    int target = link.polls.get() + more;
    Await.until(more + " more link polls", DEADLINE, () -> link.polls.get() >= target);
  }
}
