package io.vte.verbs.ibv;

import io.vte.verbs.AccessFlags;
import io.vte.verbs.MemoryRegion;
import io.vte.verbs.ProtectionDomain;
import io.vte.verbs.VerbsContext;
import java.nio.ByteBuffer;

/**
 * Entry point for a forked JVM on a fake libibverbs: opens the first device through the provider,
 * registers 4 KiB and prints {@code registered} (or why the provider is unavailable).
 */
public final class PrintRegistration {

  private PrintRegistration() {}

  /**
   * @param args none
   */
  public static void main(String[] args) {
    try (IbvProvider p = new IbvProvider(new IbvSettings())) {
      if (!p.isAvailable()) {
        System.out.println("unavailable: " + p.unavailabilityCause().getMessage());
        return;
      }
      try (VerbsContext ctx = p.open(p.devices().get(0).name());
          ProtectionDomain pd = ctx.allocPd();
          MemoryRegion mr =
              pd.registerMemory(ByteBuffer.allocateDirect(4096), AccessFlags.ALL_REMOTE)) {
        System.out.println("registered " + mr.length());
      }
    }
  }
}
