package io.vte.verbs.ibv;

import io.vte.verbs.MemoryRegion;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An {@code ibv_mr}. A region over a {@link ByteBuffer} holds the buffer until {@link #close()}, so
 * the garbage collector cannot free memory the NIC may still write; a region over a raw address
 * relies on the caller to keep the memory alive until then.
 */
final class IbvMemoryRegion implements MemoryRegion {

  private final IbvProtectionDomain pd;
  private final long mr;
  private final long address;
  private final long length;
  private final int lkey;
  private final int rkey;
  private final int accessFlags;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile ByteBuffer owner;

  /**
   * @param pd owning domain
   * @param mr the {@code ibv_mr*}
   * @param address start
   * @param length bytes
   * @param lkey local key
   * @param rkey remote key
   * @param accessFlags granted access
   * @param owner the buffer the region covers, held until deregistration; null for a raw address
   */
  IbvMemoryRegion(
      IbvProtectionDomain pd,
      long mr,
      long address,
      long length,
      int lkey,
      int rkey,
      int accessFlags,
      ByteBuffer owner) {
    this.pd = pd;
    this.mr = mr;
    this.address = address;
    this.length = length;
    this.lkey = lkey;
    this.rkey = rkey;
    this.accessFlags = accessFlags;
    this.owner = owner;
  }

  @Override
  public long address() {
    return address;
  }

  @Override
  public long length() {
    return length;
  }

  @Override
  public int lkey() {
    return lkey;
  }

  @Override
  public int rkey() {
    return rkey;
  }

  @Override
  public int accessFlags() {
    return accessFlags;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      IbvNative.deregMr(mr);
      pd.forget(this);
      owner = null;
    }
  }
}
