package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vte.testkit.Await;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QueuePair;
import io.vte.verbs.WcStatus;
import io.vte.verbs.soft.impl.SoftDevice;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A WRITE whose requester gave up while it waited unread at a stalled responder never lands once
 * the responder's QP left RTS, whichever way it left (ERR, RESET, destroyed): the engine's fence
 * before a WRITE is retried on another rail relies on it. The NIC of the responder's device is held
 * ({@link SoftFaultInjector#stallNic}) so that the WRITE is in its socket, unread, when the QP
 * moves; a newer value is written meanwhile, and must survive the release.
 */
class StalledResponderTest {

  private static final Duration DEADLINE = Duration.ofSeconds(20);
  private static final int SIZE = 16 * 1024;
  private static final int ROUNDS = 5;

  /** How the responder's QP leaves RTS. */
  enum Retire {
    ERROR,
    RESET,
    DESTROY
  }

  @ParameterizedTest
  @EnumSource(Retire.class)
  void aWriteWaitingUnreadAtARetiredResponderQpNeverLands(Retire how) throws Exception {
    try (Fabric f = new Fabric(2)) {
      MemoryRegion src = f.localMr(SIZE);
      MemoryRegion dst = f.remoteMr(SIZE);
      SoftDevice responderDevice = (SoftDevice) f.ctx(1);
      for (int round = 0; round < ROUNDS; round++) {
        byte stale = (byte) (2 * round + 1);
        byte newer = (byte) (2 * round + 2);
        CompletionQueue cq = f.ctx(0).createCq(16);
        Fabric.QpPair pair = f.pair(cq, 4, Fabric.FAST);
        QueuePair a = pair.a();
        QueuePair b = pair.b();
        // connected and used once, so the stale WRITE goes on an established connection
        assertEquals(PostStatus.OK, a.postSend(Fabric.writes(1, src, dst, 64)));
        assertEquals(
            WcStatus.SUCCESS.code(),
            Fabric.await(cq, 1, DEADLINE).get(0).status(),
            "round " + round);

        f.provider.faults().stallNic("soft1").toCompletableFuture().get(20, TimeUnit.SECONDS);
        fill(src, stale);
        assertEquals(PostStatus.OK, a.postSend(Fabric.writes(1, src, dst, SIZE)));
        List<Fabric.Wc> gaveUp = Fabric.await(cq, 1, DEADLINE);
        assertEquals(WcStatus.RETRY_EXC_ERR.code(), gaveUp.get(0).status(), "round " + round);
        switch (how) {
          case ERROR -> b.toError();
          case RESET -> b.toReset();
          case DESTROY -> b.close();
        }
        fill(dst, newer); // what a newer WRITE by another path left there
        a.close(); // the requester's socket closes: the stale request is the last thing in it
        f.provider.faults().releaseNic("soft1");
        Await.untilEquals(
            "the responder device read its sockets to their end",
            DEADLINE,
            0,
            responderDevice::openConnections);
        assertEquals(-1, firstNot(dst, newer), "round " + round + ": the stale WRITE landed");
        if (how != Retire.DESTROY) {
          b.close();
        }
        cq.close();
      }
    }
  }

  private static void fill(MemoryRegion mr, byte value) {
    ByteBuffer b = DirectMemory.wrap(mr.address(), (int) mr.length());
    while (b.hasRemaining()) {
      b.put(value);
    }
  }

  /**
   * @return the offset of the first byte that is not {@code value}, or -1
   */
  private static int firstNot(MemoryRegion mr, byte value) {
    ByteBuffer b = DirectMemory.wrap(mr.address(), (int) mr.length());
    for (int i = 0; i < b.capacity(); i++) {
      if (b.get(i) != value) {
        return i;
      }
    }
    return -1;
  }
}
