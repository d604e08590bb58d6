package io.vte.verbs;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * A 128-bit global identifier, held as two longs (big-endian halves) so it compares by value.
 *
 * @param hi the first 8 bytes, big-endian
 * @param lo the last 8 bytes, big-endian
 */
public record Gid(long hi, long lo) {

  /** The all-zero GID. */
  public static final Gid ZERO = new Gid(0, 0);

  /**
   * @param raw exactly 16 bytes
   * @return the GID
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} when {@code raw} is not 16 bytes
   */
  public static Gid fromBytes(byte[] raw) {
    if (raw == null || raw.length != 16) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "a GID is 16 bytes, got " + (raw == null ? "null" : raw.length));
    }
    return new Gid(readLong(raw, 0), readLong(raw, 8));
  }

  /**
   * @param address an IPv4 address (mapped to {@code ::ffff:a.b.c.d}, as RoCE v2 does) or an IPv6
   *     address
   * @return the GID
   */
  public static Gid fromInetAddress(InetAddress address) {
    byte[] raw = new byte[16];
    byte[] a = address.getAddress();
    if (a.length == 4) {
      raw[10] = (byte) 0xff;
      raw[11] = (byte) 0xff;
      System.arraycopy(a, 0, raw, 12, 4);
    } else {
      System.arraycopy(a, 0, raw, 0, 16);
    }
    return fromBytes(raw);
  }

  /**
   * @return the 16 bytes, big-endian
   */
  public byte[] toBytes() {
    byte[] raw = new byte[16];
    writeLong(raw, 0, hi);
    writeLong(raw, 8, lo);
    return raw;
  }

  /**
   * @return true for an IPv4-mapped GID ({@code ::ffff:a.b.c.d})
   */
  public boolean isIpv4Mapped() {
    return hi == 0 && (lo >>> 32) == 0xffffL;
  }

  /**
   * @return true for a link-local GID ({@code fe80::/10})
   */
  public boolean isLinkLocal() {
    return (hi >>> 54) == (0xfe80L >>> 6);
  }

  /**
   * @return the IP address this GID carries: an {@link Inet4Address} when IPv4-mapped, else an
   *     {@link Inet6Address}
   */
  public InetAddress toInetAddress() {
    try {
      byte[] raw = toBytes();
      if (isIpv4Mapped()) {
        return InetAddress.getByAddress(new byte[] {raw[12], raw[13], raw[14], raw[15]});
      }
      return InetAddress.getByAddress(raw);
    } catch (UnknownHostException e) {
      throw new IllegalStateException("16 or 4 bytes are always a valid address", e);
    }
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(39);
    byte[] raw = toBytes();
    for (int i = 0; i < 16; i += 2) {
      if (i > 0) {
        sb.append(':');
      }
      sb.append(String.format("%02x%02x", raw[i], raw[i + 1]));
    }
    return sb.toString();
  }

  private static long readLong(byte[] b, int off) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (b[off + i] & 0xffL);
    }
    return v;
  }

  private static void writeLong(byte[] b, int off, long v) {
    for (int i = 7; i >= 0; i--) {
      b[off + i] = (byte) v;
      v >>>= 8;
    }
  }
}
