package io.vte.cli;

import io.vte.verbs.DeviceInfo;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code vte devices}: lists the devices of every verbs provider on the class path (soft verbs, and
 * ibverbs when present), or why a provider is unavailable, with each port's state, MTU, GID and LID.
 */
@Command(name = "devices", mixinStandardHelpOptions = true,
    description = "List verbs devices (soft verbs and, when available, ibverbs) with port state, MTU, GID, LID.")
public final class DevicesCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  /** Creates the command (picocli instantiates it). */
  public DevicesCommand() {}

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    out.printf("%-10s %-8s %-5s %-7s %-6s %-41s %s%n", "PROVIDER", "DEVICE", "PORT", "STATE", "MTU", "GID", "LID");
    for (String name : VerbsProviders.names()) {
      try (VerbsProvider provider = VerbsProviders.create(name, Map.of())) {
        if (!provider.isAvailable()) {
          Throwable cause = provider.unavailabilityCause();
          out.printf("%-10s unavailable: %s%n", name, cause == null ? "unknown reason" : cause.getMessage());
          continue;
        }
        for (DeviceInfo d : provider.devices()) {
          for (PortAttributes p : d.ports()) {
            out.printf("%-10s %-8s %-5d %-7s %-6d %-41s %s%n", name, d.name(), p.port(), p.state(), p.activeMtu(),
                p.gid(), p.lid() == 0 ? "0 (ephemeral until opened)" : Integer.toString(p.lid()));
          }
        }
      }
    }
    out.flush();
    return 0;
  }
}
