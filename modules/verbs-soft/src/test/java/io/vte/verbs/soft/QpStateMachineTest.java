package io.vte.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.PostStatus;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QpState;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import io.vte.verbs.WcStatus;
import io.vte.verbs.WorkRequestBatch;
import io.vte.verbs.WrFlags;
import io.vte.verbs.WrOpcode;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every legal and illegal QP transition, and posting in each state. */
class QpStateMachineTest {

  private static Fabric fabric;
  private static CompletionQueue cq;
  private static final QpPeer PEER =
      new QpPeer(1, 1, Gid.fromInetAddress(InetAddress.getLoopbackAddress()), 0);

  @BeforeAll
  static void open() {
    fabric = new Fabric(1);
    cq = fabric.ctx(0).createCq(1024);
  }

  @AfterAll
  static void close() {
    fabric.close();
  }

  /** The transitions, indexed like QpState: INIT, RTR, RTS, ERR, RESET. */
  private enum Move {
    INIT(q -> q.toInit(1, AccessFlags.ALL_REMOTE)),
    RTR(q -> q.toRtr(PEER, 1024)),
    RTS(q -> q.toRts(new RtsAttributes(0, 14, 1, 0))),
    ERR(QueuePair::toError),
    RESET(QueuePair::toReset);

    final Consumer<QueuePair> apply;

    Move(Consumer<QueuePair> apply) {
      this.apply = apply;
    }
  }

  private QueuePair qpIn(QpState state) {
    QueuePair qp = fabric.qp(0, cq, 4);
    switch (state) {
      case RESET:
        break;
      case ERR:
        qp.toError();
        break;
      default:
        qp.toInit(1, AccessFlags.ALL_REMOTE);
        if (state == QpState.INIT) {
          break;
        }
        qp.toRtr(PEER, 1024);
        if (state == QpState.RTR) {
          break;
        }
        qp.toRts(new RtsAttributes(0, 14, 1, 0));
    }
    assertEquals(state, qp.state());
    return qp;
  }

  private static boolean legal(QpState from, Move move) {
    switch (move) {
      case INIT:
        return from == QpState.RESET || from == QpState.INIT;
      case RTR:
        return from == QpState.INIT;
      case RTS:
        return from == QpState.RTR;
      default:
        return true; // any state -> ERR, any state -> RESET
    }
  }

  @Test
  void everyTransitionFromEveryStateIsLegalOrRejectedAsIbverbsSays() {
    List<QpState> states =
        List.of(QpState.RESET, QpState.INIT, QpState.RTR, QpState.RTS, QpState.ERR);
    int checked = 0;
    for (QpState from : states) {
      for (Move move : Move.values()) {
        try (QueuePair qp = qpIn(from)) {
          if (legal(from, move)) {
            move.apply.accept(qp);
            assertEquals(QpState.valueOf(move.name()), qp.state(), from + " -> " + move);
          } else {
            VerbsException e =
                assertThrows(
                    VerbsException.class, () -> move.apply.accept(qp), from + " -> " + move);
            assertEquals(VerbsError.INVALID_STATE, e.error());
            assertEquals(from, qp.state(), "a rejected transition leaves the state alone");
          }
          checked++;
        }
      }
    }
    assertEquals(25, checked);
  }

  @Test
  void postingSendsBeforeRtsAndReceivesInResetFails() {
    WorkRequestBatch wr = WorkRequestBatch.allocate(2);
    wr.add(1, WrOpcode.RDMA_WRITE, WrFlags.SIGNALED, 0, 0, 0, 0, 0);
    for (QpState s : List.of(QpState.RESET, QpState.INIT, QpState.RTR)) {
      try (QueuePair qp = qpIn(s)) {
        assertEquals(PostStatus.INVALID_STATE, qp.postSend(wr), "postSend in " + s);
        assertEquals(0, wr.badIndex());
        int recv = qp.postRecv(wr);
        assertEquals(
            s == QpState.RESET ? PostStatus.INVALID_STATE : PostStatus.OK,
            recv,
            "postRecv in " + s);
      }
    }
  }

  @Test
  void postingInErrFlushesEverySendAndReceive() {
    try (QueuePair qp = qpIn(QpState.ERR)) {
      WorkRequestBatch wr = WorkRequestBatch.allocate(3);
      wr.add(1, WrOpcode.RDMA_WRITE, WrFlags.NONE, 0, 0, 0, 0, 0);
      wr.add(2, WrOpcode.SEND, WrFlags.SIGNALED, 0, 0, 0, 0, 0);
      assertEquals(PostStatus.OK, qp.postSend(wr));
      wr.clear();
      wr.add(3, WrOpcode.RECV, 0, 0, 0, 0, 0, 0);
      assertEquals(PostStatus.OK, qp.postRecv(wr));
      List<Fabric.Wc> wcs = Fabric.await(cq, 3, Duration.ofSeconds(10));
      for (Fabric.Wc wc : wcs) {
        assertEquals(
            WcStatus.WR_FLUSH_ERR.code(), wc.status(), "flushed even when unsignaled: " + wc);
        assertEquals(qp.qpNum(), wc.qpNum());
      }
      assertEquals(List.of(1L, 2L, 3L), wcs.stream().map(Fabric.Wc::wrId).sorted().toList());
    }
  }

  @Test
  void sendQueueDepthIsEnforcedAndBadOpcodesRejected() {
    try (QueuePair qp = qpIn(QpState.RTS)) {
      WorkRequestBatch wr = WorkRequestBatch.allocate(6);
      for (int i = 0; i < 6; i++) {
        wr.add(i, WrOpcode.RDMA_WRITE, WrFlags.NONE, 0, 0, 0, 0, 0);
      }
      assertEquals(PostStatus.QUEUE_FULL, qp.postSend(wr));
      assertEquals(4, wr.badIndex(), "the first 4 fit a depth-4 queue");
      wr.clear();
      wr.add(9, 99, WrFlags.NONE, 0, 0, 0, 0, 0);
      qp.toError();
      assertEquals(PostStatus.INVALID_STATE, qp.postSend(wr));
      assertEquals(0, wr.badIndex());
      Fabric.await(cq, 4, Duration.ofSeconds(10));
    }
  }

  @Test
  void badArgumentsAreTypedErrorsNamingTheValue() {
    try (QueuePair qp = qpIn(QpState.RESET)) {
      VerbsException port = assertThrows(VerbsException.class, () -> qp.toInit(2, 0));
      assertEquals(VerbsError.INVALID_ARGUMENT, port.error());
      assertEquals(true, port.getMessage().contains("port 2"));
      qp.toInit(1, AccessFlags.ALL_REMOTE);
      VerbsException mtu = assertThrows(VerbsException.class, () -> qp.toRtr(PEER, 1000));
      assertEquals(true, mtu.getMessage().contains("1000"));
    }
    assertThrows(VerbsException.class, () -> fabric.ctx(0).createCq(0));
    VerbsException closed =
        assertThrows(
            VerbsException.class,
            () -> {
              QueuePair q = fabric.qp(0, cq, 1);
              q.close();
              q.toInit(1, 0);
            });
    assertEquals(VerbsError.CLOSED, closed.error());
  }
}
