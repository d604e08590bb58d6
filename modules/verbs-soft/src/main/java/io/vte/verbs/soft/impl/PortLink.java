package io.vte.verbs.soft.impl;

/**
 * Whether a soft port may be ACTIVE as far as its link goes: the kernel link under the device's
 * address, settled, and the fault injector's hold. Down counts at once; up only once the link has
 * been seen up at {@link #UP_POLLS} polls in a row (as a NIC's port turns ACTIVE only after link
 * training), so a link whose addresses and routes are still being restored right after it came up
 * is not announced yet. NIC thread only, after construction.
 */
final class PortLink {

  /** Polls in a row that saw the link up before it counts as up again. */
  static final int UP_POLLS = 4;

  private final LinkProbe probe;

  /** What the kernel says of the link under the address, settled. */
  private boolean linkUp;

  /** Polls in a row that saw the link up. */
  private int upPolls;

  /** False while the fault injector holds the port down. */
  private boolean injectorUp = true;

  PortLink(LinkProbe probe) {
    this.probe = probe;
    this.linkUp = probe.isUp();
  }

  /**
   * @return whether there is a link to poll
   */
  boolean watches() {
    return probe.watches();
  }

  /**
   * Reads the link once.
   *
   * @param log where a failing probe (taken as down) is logged
   * @return true when the settled state of the link changed
   */
  boolean poll(DeviceLog log) {
    boolean up;
    try {
      up = probe.isUp();
    } catch (RuntimeException e) {
      log.nicFailure(e);
      up = false;
    }
    upPolls = up ? upPolls + 1 : 0;
    boolean settled = up && (linkUp || upPolls >= UP_POLLS);
    if (settled == linkUp) {
      return false;
    }
    linkUp = settled;
    log.linkChanged(probe, settled);
    return true;
  }

  /** The fault injector holds the port down ({@code false}) or lets it come back. */
  void setInjectorUp(boolean up) {
    injectorUp = up;
  }

  /**
   * @return true when the link is up and the fault injector does not hold the port down
   */
  boolean isUp() {
    return linkUp && injectorUp;
  }

  @Override
  public String toString() {
    return probe.toString();
  }
}
