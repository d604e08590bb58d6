package io.vte.verbs.ibv;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.Closeables;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@code ibv_pd}: registers memory and creates RC QPs; closing it closes its QPs, then its MRs.
 */
final class IbvProtectionDomain implements ProtectionDomain {

  private final IbvContext context;
  private final long pd;
  private final Set<IbvMemoryRegion> mrs = ConcurrentHashMap.newKeySet();
  private final Set<IbvQueuePair> qps = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param context owning context
   * @param pd the {@code ibv_pd*}
   */
  IbvProtectionDomain(IbvContext context, long pd) {
    this.context = context;
    this.pd = pd;
  }

  @Override
  public MemoryRegion registerMemory(ByteBuffer buffer, int accessFlags) {
    try {
      return register(DirectMemory.address(buffer), buffer.capacity(), accessFlags, buffer);
    } finally {
      // The NIC may DMA into the buffer as soon as ibv_reg_mr returns: it must not be freed before
      // the region holds it.
      Reference.reachabilityFence(buffer);
    }
  }

  @Override
  public MemoryRegion registerMemory(long address, long length, int accessFlags) {
    return register(address, length, accessFlags, null);
  }

  private MemoryRegion register(long address, long length, int accessFlags, ByteBuffer owner) {
    checkOpen();
    if (address == 0 || length <= 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "cannot register address 0x" + Long.toHexString(address) + " length " + length);
    }
    AccessFlags.validate(accessFlags);
    int[] keys = new int[2];
    long mr = IbvNative.regMr(pd, address, length, accessFlags, keys);
    IbvMemoryRegion region =
        new IbvMemoryRegion(this, mr, address, length, keys[0], keys[1], accessFlags, owner);
    mrs.add(region);
    return region;
  }

  @Override
  public QueuePair createQp(QpInitAttributes attributes) {
    checkOpen();
    IbvCompletionQueue send = ownCq(attributes.sendCq(), "send");
    IbvCompletionQueue recv = ownCq(attributes.recvCq(), "receive");
    // READ-back verify posts two work requests per verified one: the device's depth is halved.
    int limit = context.queueLimits().maxQpWr();
    if (attributes.maxSendWr() > limit || attributes.maxRecvWr() > limit) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "queue depths maxSendWr="
              + attributes.maxSendWr()
              + " maxRecvWr="
              + attributes.maxRecvWr()
              + " exceed "
              + (context.checksPayloadIntegrity() ? limit + ", half of max_qp_wr " : "max_qp_wr ")
              + context.caps().maxQpWr()
              + " of '"
              + context.deviceName()
              + "'"
              + (context.checksPayloadIntegrity() ? ReadBackVerifier.WHY_HALF : ""));
    }
    boolean verify = context.checksPayloadIntegrity();
    int[] qpNum = new int[4];
    long qp =
        IbvNative.createQp(
            pd,
            send.handle(),
            recv.handle(),
            verify ? 2 * attributes.maxSendWr() : attributes.maxSendWr(),
            attributes.maxRecvWr(),
            attributes.maxInlineData(),
            qpNum);
    // qpNum[1..3]: the granted depths (at least those asked for) and inline size, which posts keep
    // to
    ReadBackVerifier verifier =
        verify ? new ReadBackVerifier(this, qpNum[0], attributes.maxSendWr()) : null;
    IbvQueuePair pair =
        new IbvQueuePair(this, context, qp, qpNum[0], qpNum[3], send, recv, verifier);
    qps.add(pair);
    return pair;
  }

  private IbvCompletionQueue ownCq(Object cq, String role) {
    if (!(cq instanceof IbvCompletionQueue)
        || context.cqByHandle(((IbvCompletionQueue) cq).handle()) != cq) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "the "
              + role
              + " CQ "
              + cq
              + " is not an open CQ of device '"
              + context.deviceName()
              + "'");
    }
    return (IbvCompletionQueue) cq;
  }

  /**
   * @param mr a deregistered region to forget
   */
  void forget(IbvMemoryRegion mr) {
    mrs.remove(mr);
  }

  /**
   * @param qp a destroyed QP to forget
   */
  void forget(IbvQueuePair qp) {
    qps.remove(qp);
  }

  private void checkOpen() {
    if (closed.get()) {
      throw new VerbsException(
          VerbsError.CLOSED, "protection domain of '" + context.deviceName() + "' is closed");
    }
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    RuntimeException failure = Closeables.closeAll(mrs, Closeables.closeAll(qps, null));
    if (failure != null) {
      throw failure;
    }
    IbvNative.deallocPd(pd);
    context.forget(this);
  }
}
