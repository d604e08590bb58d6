package io.vte.verbs;

/**
 * What wiring two queue pairs together takes when both ends are known in one process (benchmarks,
 * tests).
 */
public final class QueuePairs {

  private QueuePairs() {}

  /**
   * Moves both RC QPs through INIT and RTR to RTS over port 1, each aimed at the other (MTU 4096,
   * all remote access): what a handshake would do, for two QPs of this process.
   *
   * @param a a QP in RESET
   * @param aContext the device of {@code a}
   * @param aRts {@code a}'s send PSN and timing ({@code b} expects that PSN)
   * @param b the other QP, in RESET
   * @param bContext the device of {@code b}
   * @param bRts {@code b}'s send PSN and timing ({@code a} expects that PSN)
   * @throws VerbsException when a transition is refused
   */
  public static void connectInProcess(
      QueuePair a,
      VerbsContext aContext,
      RtsAttributes aRts,
      QueuePair b,
      VerbsContext bContext,
      RtsAttributes bRts) {
    PortAttributes pa = aContext.queryPort(1);
    PortAttributes pb = bContext.queryPort(1);
    a.toInit(1, AccessFlags.ALL_REMOTE);
    b.toInit(1, AccessFlags.ALL_REMOTE);
    a.toRtr(new QpPeer(b.qpNum(), pb.lid(), pb.gid(), bRts.sqPsn()), 4096);
    b.toRtr(new QpPeer(a.qpNum(), pa.lid(), pa.gid(), aRts.sqPsn()), 4096);
    a.toRts(aRts);
    b.toRts(bRts);
  }
}
