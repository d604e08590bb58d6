package io.vte.cli.bench;

import io.vte.api.DefaultSoftDevices;
import io.vte.api.EngineOptions;
import io.vte.api.SoftDeviceSpec;
import io.vte.cli.ByteSize;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The engine flags every {@code vte bench} form shares: devices, owners per device, slice size, transport,
 * metadata backend and the fault schedule.
 */
public final class EngineFlags {

  /** Loopback devices per engine of the embedded bench without {@code --devices}. */
  public static final int EMBEDDED_DEVICES = 2;

  @Option(names = "--devices", paramLabel = "LIST|N",
      description = {"Devices: a comma list of soft device specs NAME@ADDRESS[:PORT] (ibverbs: device names), or a",
          "count N of loopback soft devices on 127.0.0.1..N. Default: 'vte bench' " + EMBEDDED_DEVICES
              + " loopback devices per engine",
          "(src0.., dst0..); 'target' and 'initiator' soft0.. on this host's interfaces, one per IPv4 address",
          "('vte devices' shows the choice)."})
  String devices;

  private DefaultSoftDevices.Choice hostChoice;

  @Option(names = {"--workers-per-context", "--workers"}, defaultValue = "2",
      description = "Owners per device (default ${DEFAULT-VALUE}).")
  int workers;

  @Option(names = "--slice-size", defaultValue = "64K", converter = ByteSize.IntConverter.class, paramLabel = "BYTES",
      description = "Engine slice size in bytes, e.g. 64K (default ${DEFAULT-VALUE}).")
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
      description = {"Soft-verbs faults on this run's devices, e.g. port-down:src1@5s,port-up:src1@12s ('vte bench':",
          "src0.., dst0..; 'target', 'initiator': soft0..); kinds: port-down, port-up, qp-fatal,",
          "drop:DEVICE:FRACTION, clear; times after the measurement starts."})
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
    if (devices == null) {
      if ("ibverbs".equals(transport)) {
        throw new IllegalArgumentException("--transport ibverbs needs --devices as a list of device names");
      }
    } else if (devices.matches("\\d+")) {
      int n = Integer.parseInt(devices);
      if (n < 1 || n > 8) {
        throw new IllegalArgumentException("--devices must be 1..8 or a device list, got " + devices);
      }
    } else if (!devices.matches("[A-Za-z0-9_.:@-]+(,[A-Za-z0-9_.:@-]+)*")) {
      throw new IllegalArgumentException("--devices must be a count or a comma list of devices, got '" + devices + "'");
    }
    if ("ibverbs".equals(transport) && devices != null && devices.matches("\\d+")) {
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
   * The devices of one engine of the embedded bench.
   *
   * @param prefix device name prefix when {@code --devices} is a count or unset ({@code src} gives src0, src1, ...)
   * @return the device specs, by default {@value #EMBEDDED_DEVICES} on 127.0.0.1, 127.0.0.2, ...
   */
  public List<String> embeddedSpecs(String prefix) {
    return specs(devices == null ? Integer.toString(EMBEDDED_DEVICES) : devices, prefix);
  }

  /**
   * The devices of a two-process bench engine ({@code target}, {@code initiator}).
   *
   * @return the device specs; without {@code --devices} {@link DefaultSoftDevices}' choice for this host
   */
  public List<String> hostSpecs() {
    return devices == null ? hostChoice().specs() : specs(devices, DefaultSoftDevices.PREFIX);
  }

  /** @return whether the devices are this host's default choice (no {@code --devices}) */
  public boolean hostDefault() {
    return devices == null;
  }

  /** @return the default choice for this host, made once per run */
  public DefaultSoftDevices.Choice hostChoice() {
    if (hostChoice == null) {
      hostChoice = DefaultSoftDevices.forThisHost();
    }
    return hostChoice;
  }

  private static List<String> specs(String devices, String prefix) {
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
   * @param specs device specs
   * @return the device names (the spec before {@code @})
   */
  public static List<String> names(List<String> specs) {
    return specs.stream().map(SoftDeviceSpec::nameOf).toList();
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

  /** @return the {@code --metadata} value: p2p or etcd://... */
  public String metadata() {
    return metadata;
  }

  /**
   * @param specs the engine's devices ({@link #embeddedSpecs} or {@link #hostSpecs})
   * @return engine options for these flags; the handshake service's host is left to the engine (the first
   *     soft device's address)
   */
  public EngineOptions engineOptions(List<String> specs) {
    return new EngineOptions().setTransport(transport).setDevices(specs).setWorkersPerContext(workers)
        .setSliceSize(sliceSize).setMaxOutstandingPerQp(maxOutstandingPerQp).setMetadataUri(metadata).setHandshakeDeadline(Duration.ofMillis((long) (handshakeTimeout * 1000)));
  }
}
