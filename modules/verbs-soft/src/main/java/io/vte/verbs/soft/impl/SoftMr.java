package io.vte.verbs.soft.impl;

import io.vte.verbs.MemoryRegion;
import io.vte.verbs.soft.impl.wire.AccessGate;

/**
 * A registered region of native memory; its lkey and rkey are the same key in the device's MR
 * table.
 *
 * <p>NIC threads touch the memory only between {@link #acquire()} and {@link #release()} (one
 * socket call or one copy at a time); {@link #close()} refuses new acquires and waits for the ones
 * in progress, so once it returns nothing reads or writes the memory any more and the owner may
 * free it, as after {@code ibv_dereg_mr}.
 */
public final class SoftMr implements MemoryRegion {

  private final SoftPd pd;
  private final long address;
  private final long length;
  private final int access;
  private final int key;

  /** Keeps a registered ByteBuffer reachable: the NIC writes into its memory by address. */
  private volatile Object owner;

  /** The memory accesses in progress; closed at deregistration. */
  private final AccessGate gate = new AccessGate(true);

  SoftMr(SoftPd pd, long address, long length, int access, int key, Object owner) {
    this.owner = owner;
    this.pd = pd;
    this.address = address;
    this.length = length;
    this.access = access;
    this.key = key;
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
    return key;
  }

  @Override
  public int rkey() {
    return key;
  }

  @Override
  public int accessFlags() {
    return access;
  }

  SoftPd pd() {
    return pd;
  }

  /**
   * Overflow-safe bounds check.
   *
   * @return true when {@code [addr, addr + len)} lies inside the region
   */
  private boolean covers(long addr, long len) {
    if (len < 0 || Long.compareUnsigned(addr, address) < 0) {
      return false;
    }
    long off = addr - address;
    return Long.compareUnsigned(off, length) <= 0 && len <= length - off;
  }

  /**
   * @return true when the region is open, belongs to {@code domain}, grants {@code needed} and
   *     covers the range
   */
  boolean permits(SoftPd domain, int needed, long addr, long len) {
    return gate.isOpen() && pd == domain && (access & needed) == needed && covers(addr, len);
  }

  /**
   * Starts one access to the memory (NIC thread); pairs with {@link #release()} when it returned
   * true.
   *
   * @return false when the region is closed: the memory must not be touched
   */
  public boolean acquire() {
    return gate.acquire();
  }

  /** Ends the access started by a successful {@link #acquire()}. */
  public void release() {
    gate.release();
  }

  /**
   * Deregisters the region: new accesses fail, and this returns only once the accesses in progress
   * (each a single non-blocking socket call or copy) have ended.
   */
  @Override
  public void close() {
    if (gate.close()) {
      pd.forget(this);
      owner = null; // only now may a registered ByteBuffer's memory go
    }
  }

  @Override
  public String toString() {
    return "MR[key=0x"
        + Integer.toHexString(key)
        + " addr=0x"
        + Long.toHexString(address)
        + " len="
        + length
        + "]";
  }
}
