package io.vte.verbs.ibv;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.CompletionQueue;
import io.vte.verbs.Gid;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QpPeer;
import io.vte.verbs.QueuePair;
import io.vte.verbs.RtsAttributes;
import io.vte.verbs.VerbsContext;

/** A provider, context, PD, CQ (fake ordinal 0) and QP on the fake libibverbs, closed as one. */
final class FakeRig implements AutoCloseable {

  /** The peer every connected rig points at. */
  static final QpPeer PEER =
      new QpPeer(0x4242, 17, new Gid(0x0102030405060708L, 0x1112131415161718L), 0x00abcd);

  final IbvProvider provider;
  final VerbsContext context;
  final ProtectionDomain pd;
  final CompletionQueue cq;
  final QueuePair qp;

  /** Opens everything with default settings. */
  FakeRig() {
    provider = new IbvProvider(new IbvSettings());
    context = provider.open("fake_mlx5_0");
    pd = context.allocPd();
    cq = context.createCq(64);
    qp = pd.createQp(new QpInitAttributes(cq, cq, 32, 16, 64));
  }

  /**
   * @return this rig with its QP in RTS
   */
  FakeRig connected() {
    qp.toInit(1, AccessFlags.ALL_REMOTE);
    qp.toRtr(PEER, 1024);
    qp.toRts(new RtsAttributes(0x000123, 14, 7, 7));
    return this;
  }

  @Override
  public void close() {
    provider.close();
  }
}
