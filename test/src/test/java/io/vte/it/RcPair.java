package io.vte.it;

import io.vte.verbs.QueuePair;
import io.vte.verbs.QueuePairs;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;

/**
 * Connects two RC QPs of the suite's verbs-level tests to each other (port 1, MTU 4096, 67 ms
 * timeout, 7 retries).
 */
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
    RtsAttributes rts = new RtsAttributes(1, 14, 7, 7);
    QueuePairs.connectInProcess(qpA, a, rts, qpB, b, rts);
  }
}
