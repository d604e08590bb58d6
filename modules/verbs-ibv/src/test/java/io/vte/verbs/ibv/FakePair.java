package io.vte.verbs.ibv;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;
import io.vte.verbs.WorkCompletionBatch;

/**
 * Two RC QPs of the fake libibverbs connected to each other (each with its own CQ) through the
 * provider, as the engine connects them: the fake's wire moves bytes between them.
 */
final class FakePair implements AutoCloseable {

  final IbvProvider provider;
  final VerbsContext context;
  final ProtectionDomain pd;
  final CompletionQueue cqA;
  final CompletionQueue cqB;
  final QueuePair a;
  final QueuePair b;

  /**
   * @param settings provider settings
   */
  FakePair(IbvSettings settings) {
    provider = new IbvProvider(settings);
    context = provider.open("fake_mlx5_0");
    pd = context.allocPd();
    cqA = context.createCq(64);
    cqB = context.createCq(64);
    a = pd.createQp(new QpInitAttributes(cqA, cqA, 32, 32, 0));
    b = pd.createQp(new QpInitAttributes(cqB, cqB, 32, 32, 0));
    PortAttributes port = context.queryPort(1);
    a.toInit(1, AccessFlags.ALL_REMOTE);
    b.toInit(1, AccessFlags.ALL_REMOTE);
    a.toRtr(new QpPeer(b.qpNum(), port.lid(), port.gid(), 2), port.activeMtu());
    b.toRtr(new QpPeer(a.qpNum(), port.lid(), port.gid(), 1), port.activeMtu());
    a.toRts(new RtsAttributes(1, 14, 7, 7));
    b.toRts(new RtsAttributes(2, 14, 7, 7));
  }

  /**
   * @param cq a CQ
   * @return its completions now
   */
  static WorkCompletionBatch poll(CompletionQueue cq) {
    WorkCompletionBatch out = WorkCompletionBatch.allocate(64);
    cq.poll(out);
    return out;
  }

  @Override
  public void close() {
    provider.close();
  }
}
