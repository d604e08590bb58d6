package io.vte.verbs.ibv;

import io.vte.verbs.MemoryRegion;
import java.util.concurrent.atomic.AtomicBoolean;

/** An {@code ibv_mr} over memory the caller keeps alive until {@link #close()}. */
final class IbvMemoryRegion implements MemoryRegion {

  private final IbvProtectionDomain pd;
  private final long mr;
  private final long address;
  private final long length;
  private final int lkey;
  private final int rkey;
  private final int accessFlags;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param pd owning domain
   * @param mr the {@code ibv_mr*}
   * @param address start
   * @param length bytes
   * @param lkey local key
   * @param rkey remote key
   * @param accessFlags granted access
   */
  IbvMemoryRegion(
      IbvProtectionDomain pd,
      long mr,
      long address,
      long length,
      int lkey,
      int rkey,
      int accessFlags) {
    this.pd = pd;
    this.mr = mr;
    this.address = address;
    this.length = length;
    this.lkey = lkey;
    this.rkey = rkey;
    this.accessFlags = accessFlags;
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
    }
  }
}
