package io.vte.engine;

import io.vte.engine.impl.shm.HostIdentity;

/** What the same-host shared-memory rail can prove about this process, for {@code vte devices}. */
public final class SameHostRail {

  private SameHostRail() {}

  /**
   * @return {@code ACTIVE} with the host's boot id and the user same-host peers must share, or why
   *     the rail is unavailable here
   */
  public static String describe() {
    HostIdentity host = HostIdentity.current();
    if (!host.isKnown()) {
      return "unavailable: no boot id or user id to prove a same-host peer with (no /proc?)";
    }
    return "ACTIVE boot id "
        + host.bootId()
        + ", user "
        + host.uid()
        + ": peers of this host and user copy TransferEngine.allocate memory (/dev/shm) directly";
  }
}
