package io.vte.cli.bench;

import io.vte.api.TransferEngine;
import java.util.function.UnaryOperator;

/**
 * A bench target and an initiator in this JVM, one soft device each, and the initiator's session on
 * the target's buffer: what the bench tests drive a load through. Closes the session, the initiator
 * and the target, in that order.
 */
final class LoopbackBench implements AutoCloseable {

  final BenchTarget target;
  final BenchInitiator initiator;
  final InitiatorSession session;

  private LoopbackBench(BenchTarget target, BenchInitiator initiator, InitiatorSession session) {
    this.target = target;
    this.initiator = initiator;
    this.session = session;
  }

  /**
   * @param name prefix of the two engines' device names
   * @param plan the load the session must hold
   * @param sharedMemory true: the target's buffer is engine-allocated shared memory
   * @return the pair with its session open
   */
  static LoopbackBench open(String name, LoadGenerator.Plan plan, boolean sharedMemory)
      throws Exception {
    return open(name, plan, sharedMemory, UnaryOperator.identity());
  }

  /**
   * @param name prefix of the two engines' device names
   * @param plan the load the session must hold
   * @param sharedMemory true: the target's buffer is engine-allocated shared memory
   * @param drive what the session drives its load through, given the initiating engine (e.g. a
   *     proxy of it that alters requests)
   * @return the pair with its session open
   */
  static LoopbackBench open(
      String name,
      LoadGenerator.Plan plan,
      boolean sharedMemory,
      UnaryOperator<TransferEngine> drive)
      throws Exception {
    BenchTarget target =
        BenchTarget.start(LoopbackEngineOptions.oneDevice(name + "t"), plan.region(), sharedMemory);
    try {
      BenchInitiator initiator = BenchInitiator.start(LoopbackEngineOptions.oneDevice(name + "i"));
      try {
        return new LoopbackBench(
            target,
            initiator,
            InitiatorSession.open(
                initiator.vertx(),
                drive.apply(initiator.engine()),
                target.serverName(),
                plan.region()));
      } catch (Exception e) {
        initiator.close();
        throw e;
      }
    } catch (Exception e) {
      target.close();
      throw e;
    }
  }

  @Override
  public void close() {
    try {
      session.close();
    } finally {
      try {
        initiator.close();
      } finally {
        target.close();
      }
    }
  }
}
