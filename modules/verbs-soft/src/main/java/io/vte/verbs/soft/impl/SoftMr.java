package io.vte.verbs.soft.impl;

import io.vte.verbs.MemoryRegion;

/** A registered region of native memory; its lkey and rkey are the same key in the device's MR table. */
final class SoftMr implements MemoryRegion {

  private final SoftPd pd;
  private final long address;
  private final long length;
  private final int access;
  private final int key;
  /** Keeps a registered ByteBuffer reachable: the NIC writes into its memory by address. */
  private volatile Object owner;
  private volatile boolean closed;

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
   * @return true when the region is open, belongs to {@code domain}, grants {@code needed} and covers
   *     the range
   */
  boolean permits(SoftPd domain, int needed, long addr, long len) {
    return !closed && pd == domain && (access & needed) == needed && covers(addr, len);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      owner = null;
      pd.forget(this);
    }
  }

  @Override
  public String toString() {
    return "MR[key=0x" + Integer.toHexString(key) + " addr=0x" + Long.toHexString(address) + " len=" + length + "]";
  }
}
