package io.vte.it;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;

/** Connects two RC QPs of the suite's verbs-level tests to each other (port 1, MTU 4096, 67 ms timeout, 7 retries). */
final class RcPair {

  private RcPair() {}

  /**
   * Moves both QPs through INIT and RTR to RTS, each aimed at the other.
   *
   * @param qpA a QP of {@code a}
   * @param a its device
   * @param qpB a QP of {@code b}
   * @param b its device
   */
  static void connect(QueuePair qpA, VerbsContext a, QueuePair qpB, VerbsContext b) {
    PortAttributes pa = a.queryPort(1);
    PortAttributes pb = b.queryPort(1);
    qpA.toInit(1, AccessFlags.ALL_REMOTE);
    qpB.toInit(1, AccessFlags.ALL_REMOTE);
    qpA.toRtr(new QpPeer(qpB.qpNum(), pb.lid(), pb.gid(), 1), 4096);
    qpB.toRtr(new QpPeer(qpA.qpNum(), pa.lid(), pa.gid(), 1), 4096);
    qpA.toRts(new RtsAttributes(1, 14, 7, 7));
    qpB.toRts(new RtsAttributes(1, 14, 7, 7));
  }
}
