package io.vte.verbs.soft.impl.link;

import java.util.function.Consumer;

/**
 * Whether a soft port may be ACTIVE as far as its link goes: the kernel link under the device's
 * address, settled, and the fault injector's hold. Down counts at once; up only once the link has
 * been seen up at {@link #UP_POLLS} polls in a row (as a NIC's port turns ACTIVE only after link
 * training), so a link whose addresses and routes are still being restored right after it came up
 * is not announced yet. NIC thread only, after construction.
 */
public final class PortLink {

  /** Polls in a row that saw the link up before it counts as up again. */
  public static final int UP_POLLS = 4;

  private final LinkProbe probe;

  /** What the kernel says of the link under the address, settled. */
  private boolean linkUp;

  /** Polls in a row that saw the link up. */
  private int upPolls;

  /** False while the fault injector holds the port down. */
  private boolean injectorUp = true;

  public PortLink(LinkProbe probe) {
    this.probe = probe;
    this.linkUp = probe.isUp();
  }

  /**
   * @return whether there is a link to poll
   */
  public boolean watches() {
    return probe.watches();
  }

  /**
   * Reads the link once.
   *
   * @param onProbeFailure told of a failing probe (taken as down)
   * @return true when the settled state of the link changed
   */
  public boolean poll(Consumer<RuntimeException> onProbeFailure) {
    boolean up;
    try {
      up = probe.isUp();
    } catch (RuntimeException e) {
      onProbeFailure.accept(e);
      up = false;
    }
    upPolls = up ? upPolls + 1 : 0;
    boolean settled = up && (linkUp || upPolls >= UP_POLLS);
    if (settled == linkUp) {
      return false;
    }
    linkUp = settled;
    return true;
  }

  /** The fault injector holds the port down ({@code false}) or lets it come back. */
  public void setInjectorUp(boolean up) {
    injectorUp = up;
  }

  /**
   * @return what the kernel says of the link, settled
   */
  public boolean isLinkUp() {
    return linkUp;
  }

  /**
   * @return true when the link is up and the fault injector does not hold the port down
   */
  public boolean isUp() {
    return linkUp && injectorUp;
  }

  @Override
  public String toString() {
    return probe.toString();
  }
}
