package io.vte.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vte.cli.common.ExitCodes;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code vte devices}: what a newcomer reads to see which rails this host has. */
class DevicesCommandTest {

  @Test
  void theSameHostRailIsShownWithThisHostsBootIdAndUser() throws Exception {
    String bootId = Files.readString(Path.of("/proc/sys/kernel/random/boot_id")).trim();
    long uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    CliRun r = CliRun.of("devices");
    assertEquals(ExitCodes.OK, r.exit(), r.err());
    String line =
        r.out()
            .lines()
            .filter(l -> l.startsWith("same-host"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no same-host line in:\n" + r.out()));
    assertTrue(
        line.contains("shm") && line.contains("ACTIVE boot id " + bootId + ", user " + uid), line);
  }
}
