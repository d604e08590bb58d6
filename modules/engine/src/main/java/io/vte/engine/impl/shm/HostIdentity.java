package io.vte.engine.impl.shm;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Who this process is, as a same-host peer checks it: the host's boot id, the user id and the
 * process id. Read once (file reads: not on an event loop).
 *
 * @param bootId the kernel's boot id, empty when the host has none to read (then no peer is proved
 *     to be on this host)
 * @param uid the process's user id, -1 when unknown
 * @param pid the process id
 */
public record HostIdentity(String bootId, long uid, long pid) {

  private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

  /**
   * @return this process's identity
   */
  public static HostIdentity current() {
    String boot;
    try {
      boot = new String(Files.readAllBytes(BOOT_ID), StandardCharsets.US_ASCII).trim();
    } catch (IOException | UnsupportedOperationException e) {
      boot = "";
    }
    return new HostIdentity(boot, ownerUid(Path.of("/proc/self")), ProcessHandle.current().pid());
  }

  /**
   * @param path a file
   * @return the user id owning it, -1 when it cannot be read
   */
  static long ownerUid(Path path) {
    try {
      return ((Number) Files.getAttribute(path, "unix:uid")).longValue();
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return -1;
    }
  }

  /**
   * @return true when this identity can prove a same-host peer (a boot id and a user id are known)
   */
  public boolean isKnown() {
    return !bootId.isEmpty() && uid >= 0;
  }
}
