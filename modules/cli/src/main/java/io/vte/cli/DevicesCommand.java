package io.vte.cli;

import io.vertx.core.json.JsonObject;
import io.vte.api.DefaultSoftDevices;
import io.vte.api.DefaultSoftDevices.Choice;
import io.vte.api.DefaultSoftDevices.Device;
import io.vte.api.EngineOptions;
import io.vte.api.RailStatus;
import io.vte.engine.ProviderConfig;
import io.vte.engine.SameHostRail;
import io.vte.verbs.DeviceInfo;
import io.vte.verbs.PortAttributes;
import io.vte.verbs.VerbsProvider;
import io.vte.verbs.VerbsProviders;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code vte devices}: the soft devices chosen from this host's interfaces when none are configured
 * (name, address, interface, and why: which interfaces were skipped), then the devices of every
 * verbs provider on the class path (the soft provider with that choice, and ibverbs when present,
 * or why it is unavailable), with each port's state, MTU, GID and LID; for RDMA devices also the
 * device limits, link layer, GID table with types, and why a port is unusable.
 */
@Command(
    name = "devices",
    mixinStandardHelpOptions = true,
    header = "Show this host's default soft devices and all verbs devices.",
    description = {
      "Show the soft devices chosen from this host's interfaces (used without --devices and by",
      "\"devices\": []) and why, then every verbs provider's devices with port state, MTU, GID, LID."
    })
public final class DevicesCommand implements Callable<Integer> {

  @Spec private CommandSpec spec;

  /** Creates the command (picocli instantiates it). */
  public DevicesCommand() {}

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Choice choice = DefaultSoftDevices.forThisHost();
    out.printf("default soft devices (no --devices, \"devices\": []): %s%n", choice.reason());
    out.printf("  %-8s %-16s %s%n", "DEVICE", "ADDRESS", "INTERFACE");
    for (Device d : choice.devices()) {
      out.printf("  %-8s %-16s %s%n", d.name(), d.address(), d.interfaceName());
    }
    for (String skipped : choice.skipped()) {
      out.printf("  skipped %s%n", skipped);
    }
    out.println();
    out.printf(
        "%-10s %-8s %-5s %-7s %-6s %-41s %s%n",
        "PROVIDER", "DEVICE", "PORT", "STATE", "MTU", "GID", "LID");
    for (String name : VerbsProviders.names()) {
      try (VerbsProvider provider =
          VerbsProviders.create(
              name,
              "soft".equals(name)
                  ? ProviderConfig.of(new EngineOptions().setDevices(choice.specs()))
                  : new JsonObject())) {
        if (!provider.isAvailable()) {
          Throwable cause = provider.unavailabilityCause();
          out.printf(
              "%-10s unavailable: %s%n",
              name, cause == null ? "unknown reason" : cause.getMessage());
          continue;
        }
        for (DeviceInfo d : provider.devices()) {
          for (PortAttributes p : d.ports()) {
            out.printf(
                "%-10s %-8s %-5d %-7s %-6d %-41s %s%n",
                name,
                d.name(),
                p.port(),
                p.state(),
                p.activeMtu(),
                p.gid(),
                p.lid() == 0 ? "0 (ephemeral until opened)" : Integer.toString(p.lid()));
          }
          provider.deviceDetails(d.name()).forEach(out::println);
        }
      }
    }
    out.printf(
        "%-10s %-8s %s%n", "same-host", RailStatus.SAME_HOST_DEVICE, SameHostRail.describe());
    out.flush();
    return 0;
  }
}
