package io.vte.verbs.soft.impl;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.Closeables;
import io.vte.verbs.DirectMemory;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.QpInitAttributes;
import io.vte.verbs.QueuePair;
import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A protection domain: registers regions in the device's key table and creates QPs; closes both.
 */
final class SoftPd implements ProtectionDomain {

  private final SoftDevice device;
  private final Set<SoftMr> mrs = new LinkedHashSet<>();
  private final Set<SoftQp> qps = new LinkedHashSet<>();
  private boolean closed;

  SoftPd(SoftDevice device) {
    this.device = device;
  }

  @Override
  public MemoryRegion registerMemory(ByteBuffer buffer, int accessFlags) {
    if (buffer == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "buffer is null");
    }
    return register(DirectMemory.address(buffer), buffer.capacity(), accessFlags, buffer);
  }

  @Override
  public MemoryRegion registerMemory(long address, long length, int accessFlags) {
    return register(address, length, accessFlags, null);
  }

  /**
   * @param owner the buffer the memory belongs to, kept reachable while registered (null for raw
   *     memory)
   */
  private synchronized MemoryRegion register(
      long address, long length, int accessFlags, Object owner) {
    requireOpen();
    if (address == 0) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "cannot register address 0");
    }
    if (length <= 0 || Long.compareUnsigned(address + length, address) < 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "bad region length " + length + " at 0x" + Long.toHexString(address));
    }
    AccessFlags.validate(accessFlags);
    SoftMr mr =
        device.mrTable().add(key -> new SoftMr(this, address, length, accessFlags, key, owner));
    if (mr == null) {
      throw new VerbsException(
          VerbsError.NO_MEMORY, "too many memory regions on " + device.deviceName());
    }
    mrs.add(mr);
    return mr;
  }

  @Override
  public synchronized QueuePair createQp(QpInitAttributes attributes) {
    requireOpen();
    if (attributes == null) {
      throw new VerbsException(VerbsError.INVALID_ARGUMENT, "QP attributes are null");
    }
    device.requireOwnCq(attributes.sendCq());
    device.requireOwnCq(attributes.recvCq());
    if (attributes.maxSendWr() > 1 << 16
        || attributes.maxRecvWr() > 1 << 16
        || attributes.maxInlineData() > 4096) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "QP limits exceeded (maxSendWr, maxRecvWr <= 65536, "
              + "maxInlineData <= 4096): "
              + attributes);
    }
    SoftQp qp = device.qpTable().add(qpn -> new SoftQp(device, this, attributes, qpn));
    if (qp == null) {
      throw new VerbsException(VerbsError.NO_MEMORY, "too many QPs on " + device.deviceName());
    }
    qps.add(qp);
    return qp;
  }

  synchronized List<SoftQp> qpsSnapshot() {
    return new ArrayList<>(qps);
  }

  synchronized void forget(SoftMr mr) {
    mrs.remove(mr);
    device.mrTable().remove(mr.lkey());
  }

  synchronized void forget(SoftQp qp) {
    qps.remove(qp);
    device.qpTable().remove(qp.qpNum());
  }

  @Override
  public void close() {
    List<AutoCloseable> toClose;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      toClose = new ArrayList<>(qps);
      toClose.addAll(mrs);
    }
    RuntimeException failure = Closeables.closeAll(toClose, null);
    if (failure != null) {
      device.log().handlerFailure("closing children", failure);
    }
    device.forget(this);
  }

  private void requireOpen() {
    if (closed) {
      throw new VerbsException(VerbsError.CLOSED, "protection domain is closed");
    }
    device.requireUsable();
  }
}
