package io.vte.verbs.soft.impl.link;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;

/**
 * The kernel's view of the link under an address, in the network namespace of this process: up when
 * the interface carrying the address is administratively up and has carrier ({@link
 * NetworkInterface#isUp()}, the interface flags IFF_UP and IFF_RUNNING, one ioctl) and the address
 * is still on it. Finding the interface that carries the address enumerates every interface (about
 * 0.1 ms), so that is done only every {@link #RESOLVE_EVERY} polls and whenever the interface looks
 * down or gone; the polls between only read the flags of the interface found last. So a link going
 * down is seen at the next poll, an address removed or moved within {@code RESOLVE_EVERY} polls.
 */
public final class KernelLinkProbe implements LinkProbe {

  /** How many polls reuse the interface found last before it is looked up again. */
  public static final int RESOLVE_EVERY = 10;

  private final InetAddress address;
  private volatile NetworkInterface iface;
  private int pollsSinceResolve;

  public KernelLinkProbe(InetAddress address) {
    this.address = address;
    resolve();
  }

  @Override
  public boolean isUp() {
    if (iface == null || ++pollsSinceResolve >= RESOLVE_EVERY) {
      resolve();
    }
    if (flagsUp()) {
      return true;
    }
    // down, or the interface went away or was renamed: look again so a moved address is found at
    // once
    resolve();
    return flagsUp();
  }

  private boolean flagsUp() {
    try {
      return iface != null && iface.isUp();
    } catch (SocketException gone) {
      return false;
    }
  }

  private void resolve() {
    pollsSinceResolve = 0;
    try {
      iface = NetworkInterface.getByInetAddress(address);
    } catch (SocketException e) {
      iface = null;
    }
  }

  @Override
  public String toString() {
    NetworkInterface i = iface;
    return "kernel link of "
        + address.getHostAddress()
        + (i == null ? " (on no interface)" : " on " + i.getName());
  }
}
