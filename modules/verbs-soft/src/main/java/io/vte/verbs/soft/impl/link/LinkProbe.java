package io.vte.verbs.soft.impl.link;

import java.net.InetAddress;

/**
 * Where a soft device learns whether the link under its address is up, as a real NIC knows its
 * port's link. The NIC thread asks {@link #isUp()} every {@code Nic.LINK_POLL_NANOS}; an answer
 * must come at once (no waiting on anything but a system call) and allocate next to nothing.
 */
public interface LinkProbe {

  /** The link of an address that has none to lose: loopback and the wildcard. Never polled. */
  LinkProbe ALWAYS_UP =
      new LinkProbe() {
        @Override
        public boolean isUp() {
          return true;
        }

        @Override
        public boolean watches() {
          return false;
        }

        @Override
        public String toString() {
          return "no link (loopback or wildcard)";
        }
      };

  /**
   * @return true when the interface carrying the address is up with carrier and still has the
   *     address
   */
  boolean isUp();

  /**
   * @return false when there is nothing to watch (the NIC thread then never polls)
   */
  default boolean watches() {
    return true;
  }

  /**
   * @param address a soft device's bind address
   * @return {@link #ALWAYS_UP} for loopback and wildcard addresses, else the kernel interface
   *     carrying it
   */
  static LinkProbe forAddress(InetAddress address) {
    if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
      return ALWAYS_UP;
    }
    return new KernelLinkProbe(address);
  }
}
