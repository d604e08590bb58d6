package io.vte.cli.bench;

import io.vte.api.EngineOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The engine flags every {@code vte bench} form shares: devices, owners per device, slice size, transport,
 * metadata backend and the fault schedule.
 */
public final class EngineFlags {

  @Option(names = "--devices", defaultValue = "2", paramLabel = "N|LIST",
      description = "Soft devices per engine (a count), or a comma list of device specs/names (default ${DEFAULT-VALUE}).")
  String devices;

  @Option(names = {"--workers-per-context", "--workers"}, defaultValue = "2",
      description = "Owners per device (default ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--slice-size", defaultValue = "65536", description = "Engine slice size in bytes (default ${DEFAULT-VALUE}).")
  int sliceSize;

  @Option(names = "--max-outstanding-per-qp", defaultValue = "32",
      description = "Signaled work requests (slices) in flight per queue pair (default ${DEFAULT-VALUE}).")
  int maxOutstandingPerQp;

  @Option(names = "--transport", defaultValue = "soft", description = "soft or ibverbs (default ${DEFAULT-VALUE}).")
  String transport;

  @Option(names = "--metadata", defaultValue = "p2p", description = "p2p or etcd://host:port (default ${DEFAULT-VALUE}).")
  String metadata;

  @Option(names = "--handshake-timeout", defaultValue = "5",
      description = "Seconds a handshake or segment fetch may take (default ${DEFAULT-VALUE}).")
  double handshakeTimeout;

  @Option(names = "--inject", paramLabel = "SCHEDULE",
      description = {"Soft-verbs faults during the run, e.g. port-down:soft1@5s,port-up:soft1@12s;",
          "kinds: port-down, port-up, qp-fatal, drop:DEVICE:FRACTION, clear; times after the measurement starts."})
  String inject;

  /** Creates the flags (picocli fills them). */
  public EngineFlags() {}

  /**
   * Checks every value.
   *
   * @throws IllegalArgumentException naming the flag and the bad value
   */
  public void validate() {
    if (workers < 1 || workers > 16) {
      throw new IllegalArgumentException("--workers-per-context must be 1..16, got " + workers);
    }
    if (sliceSize < 4096 || sliceSize > 64 << 20) {
      throw new IllegalArgumentException("--slice-size must be 4096..67108864 bytes, got " + sliceSize);
    }
    if (maxOutstandingPerQp < 1 || maxOutstandingPerQp > 4096) {
      throw new IllegalArgumentException("--max-outstanding-per-qp must be 1..4096, got " + maxOutstandingPerQp);
    }
    if (!(handshakeTimeout >= 0.1 && handshakeTimeout <= 600)) {
      throw new IllegalArgumentException("--handshake-timeout must be 0.1..600 seconds, got " + handshakeTimeout);
    }
    if (!"soft".equals(transport) && !"ibverbs".equals(transport)) {
      throw new IllegalArgumentException("--transport must be soft or ibverbs, got '" + transport + "'");
    }
    if (!"p2p".equals(metadata) && !metadata.startsWith("etcd://")) {
      throw new IllegalArgumentException("--metadata must be p2p or etcd://host:port, got '" + metadata + "'");
    }
    if (devices.matches("\\d+")) {
      int n = Integer.parseInt(devices);
      if (n < 1 || n > 8) {
        throw new IllegalArgumentException("--devices must be 1..8 or a device list, got " + devices);
      }
    } else if (!devices.matches("[A-Za-z0-9_.:@-]+(,[A-Za-z0-9_.:@-]+)*")) {
      throw new IllegalArgumentException("--devices must be a count or a comma list of devices, got '" + devices + "'");
    }
    if ("ibverbs".equals(transport) && devices.matches("\\d+")) {
      throw new IllegalArgumentException("--transport ibverbs needs --devices as a list of device names, got " + devices);
    }
    if (inject != null) {
      if (!"soft".equals(transport)) {
        throw new IllegalArgumentException("--inject needs --transport soft, got " + transport);
      }
      FaultStep.parseAll(inject);
    }
  }

  /**
   * @param prefix device name prefix when {@code --devices} is a count ({@code soft} gives soft0, soft1, ...)
   * @return the device specs, e.g. {@code soft0@127.0.0.1}
   */
  public List<String> deviceSpecs(String prefix) {
    List<String> specs = new ArrayList<>();
    if (devices.matches("\\d+")) {
      for (int i = 0; i < Integer.parseInt(devices); i++) {
        specs.add(prefix + i + "@127.0.0." + (i + 1));
      }
    } else {
      specs.addAll(List.of(devices.split(",")));
    }
    return specs;
  }

  /**
   * @param prefix as for {@link #deviceSpecs}
   * @return the device names (the spec before {@code @})
   */
  public List<String> deviceNames(String prefix) {
    return deviceSpecs(prefix).stream().map(s -> s.contains("@") ? s.substring(0, s.indexOf('@')) : s).toList();
  }

  /** @return owners per device */
  public int workers() {
    return workers;
  }

  /** @return the engine slice size */
  public int sliceSize() {
    return sliceSize;
  }

  /** @return the parsed {@code --inject} schedule, empty without the flag */
  public List<FaultStep> faults() {
    return inject == null ? List.of() : FaultStep.parseAll(inject);
  }

  /**
   * @param prefix as for {@link #deviceSpecs}
   * @return engine options for these flags
   */
  public EngineOptions engineOptions(String prefix) {
    return new EngineOptions().setTransport(transport).setDevices(deviceSpecs(prefix)).setWorkersPerContext(workers)
        .setSliceSize(sliceSize).setMaxOutstandingPerQp(maxOutstandingPerQp).setMetadataUri(metadata).setHandshakeDeadline(Duration.ofMillis((long) (handshakeTimeout * 1000)));
  }
}
