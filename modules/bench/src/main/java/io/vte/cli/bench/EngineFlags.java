package io.vte.cli.bench;

import io.vte.api.DefaultSoftDevices;
import io.vte.api.EngineOptionFields;
import io.vte.api.EngineOptions;
import io.vte.api.InvalidOptionException;
import io.vte.api.SoftDeviceSpec;
import io.vte.cli.bench.fault.FaultStep;
import io.vte.cli.common.ByteSize;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The engine flags every {@code vte bench} form shares: devices, owners per device, slice size,
 * owners' and soft NICs' busy-poll windows, transport, metadata backend and the fault schedule.
 */
public final class EngineFlags {

  /** Loopback devices per engine of the embedded bench without {@code --devices}. */
  public static final int EMBEDDED_DEVICES = 2;

  @Option(
      names = "--devices",
      paramLabel = "LIST|N",
      description = {
        "Devices: a comma list of soft device specs NAME@ADDRESS[:PORT] (ibverbs: device names), or a",
        "count N of loopback soft devices on 127.0.0.1..N. Default: 'vte bench' "
            + EMBEDDED_DEVICES
            + " loopback devices per engine",
        "(src0.., dst0..); 'target' and 'initiator' soft0.. on this host's interfaces, one per IPv4 address",
        "('vte devices' shows the choice)."
      })
  String devices;

  private DefaultSoftDevices.Choice hostChoice;

  @Option(
      names = {"--workers-per-context", "--workers"},
      description = "Owners per device (default: the engine's workersPerContext).")
  Integer workers;

  @Option(
      names = "--slice-size",
      converter = ByteSize.IntConverter.class,
      paramLabel = "BYTES",
      description = "Engine slice size in bytes, e.g. 64K (default: the engine's sliceSize).")
  Integer sliceSize;

  @Option(
      names = "--max-outstanding-per-qp",
      description =
          "Signaled work requests (slices) in flight per queue pair (default: the engine's).")
  Integer maxOutstandingPerQp;

  @Option(
      names = "--busy-poll-us",
      paramLabel = "MICROS",
      description =
          "How long an owner with work on the wire keeps polling its CQ after its last work, 0 to"
              + " sleep at once (default: the engine's busyPollMicros).")
  Long busyPollMicros;

  @Option(
      names = "--nic-busy-poll-us",
      paramLabel = "MICROS",
      description =
          "How long a soft NIC thread keeps polling its sockets after it served a peer's request, 0"
              + " to sleep at once (default: the engine's nicBusyPollMicros).")
  Long nicBusyPollMicros;

  @Option(names = "--transport", description = "soft or ibverbs (default: the engine's).")
  String transport;

  @Option(
      names = "--metadata",
      description = "p2p, etcd://host:port[,host:port...] or etcds://... (default: the engine's).")
  String metadata;

  @Option(
      names = "--handshake-timeout",
      description =
          "Seconds a handshake or segment fetch may take (default: the engine's handshakeDeadlineMs).")
  Double handshakeTimeout;

  @Option(
      names = "--inject",
      paramLabel = "SCHEDULE",
      description = {
        "Soft-verbs faults on this run's devices, e.g. port-down:src1@5s,port-up:src1@12s ('vte bench':",
        "src0.., dst0..; 'target', 'initiator': soft0..); kinds: port-down, port-up, qp-fatal,",
        "drop:DEVICE:FRACTION, clear; times after the measurement starts."
      })
  String inject;

  /** Creates the flags (picocli fills them). */
  public EngineFlags() {}

  /** The engine option each flag sets, by the option's JSON name. */
  private static final Map<String, String> FLAGS =
      Map.of(
          EngineOptionFields.TRANSPORT.name(),
          "--transport",
          EngineOptionFields.DEVICES.name(),
          "--devices",
          EngineOptionFields.WORKERS_PER_CONTEXT.name(),
          "--workers-per-context",
          EngineOptionFields.SLICE_SIZE.name(),
          "--slice-size",
          EngineOptionFields.MAX_OUTSTANDING_PER_QP.name(),
          "--max-outstanding-per-qp",
          EngineOptionFields.METADATA_URI.name(),
          "--metadata",
          EngineOptionFields.HANDSHAKE_DEADLINE.name(),
          "--handshake-timeout",
          EngineOptionFields.BUSY_POLL.name(),
          "--busy-poll-us",
          EngineOptionFields.NIC_BUSY_POLL.name(),
          "--nic-busy-poll-us");

  /**
   * Checks every value: the flags' own forms here, the engine options they set by {@link
   * EngineOptions#validate()} (whose ranges are the only ones), each error named by its flag.
   *
   * @throws IllegalArgumentException naming the flag and the bad value
   */
  public void validate() {
    boolean ibverbs = "ibverbs".equals(engineOptions(List.of()).getTransport());
    List<String> specs;
    if (devices == null) {
      if (ibverbs) {
        throw new IllegalArgumentException(
            "--transport ibverbs needs --devices as a list of device names");
      }
      specs = List.of();
    } else if (devices.matches("\\d+")) {
      int n = Integer.parseInt(devices);
      if (n < 1 || n > 8) {
        throw new IllegalArgumentException(
            "--devices must be 1..8 or a device list, got " + devices);
      }
      if (ibverbs) {
        throw new IllegalArgumentException(
            "--transport ibverbs needs --devices as a list of device names, got " + devices);
      }
      specs = specs(devices, "d");
    } else if (!devices.matches("[A-Za-z0-9_.:@-]+(,[A-Za-z0-9_.:@-]+)*")) {
      throw new IllegalArgumentException(
          "--devices must be a count or a comma list of devices, got '" + devices + "'");
    } else {
      specs = specs(devices, "d");
    }
    try {
      engineOptions(specs).validate();
    } catch (InvalidOptionException e) {
      throw new IllegalArgumentException(flagError(e), e);
    }
    if (inject != null) {
      if (!"soft".equals(engineOptions(List.of()).getTransport())) {
        throw new IllegalArgumentException("--inject needs --transport soft, got " + transport);
      }
      FaultStep.parseAll(inject);
    }
  }

  /**
   * @param e an engine option error
   * @return its message in the flags' terms: {@code FLAG must be RANGE, got VALUE (engine option
   *     'NAME')}
   */
  private String flagError(InvalidOptionException e) {
    String flag = FLAGS.get(e.path());
    if (flag == null) {
      return e.getMessage();
    }
    Object value =
        switch (flag) {
          case "--handshake-timeout" -> handshakeTimeout;
          case "--transport" -> "'" + transport + "'";
          case "--metadata" -> "'" + metadata + "'";
          case "--devices" -> "'" + devices + "'";
          case "--busy-poll-us" -> busyPollMicros;
          case "--nic-busy-poll-us" -> nicBusyPollMicros;
          default -> e.value();
        };
    String expected =
        "--handshake-timeout".equals(flag) ? "a positive number of seconds" : e.expected();
    return flag + " must be " + expected + ", got " + value + " (engine option '" + e.path() + "')";
  }

  /**
   * The devices of one engine of the embedded bench.
   *
   * @param prefix device name prefix when {@code --devices} is a count or unset ({@code src} gives
   *     src0, src1, ...)
   * @return the device specs, by default {@value #EMBEDDED_DEVICES} on 127.0.0.1, 127.0.0.2, ...
   */
  public List<String> embeddedSpecs(String prefix) {
    return specs(devices == null ? Integer.toString(EMBEDDED_DEVICES) : devices, prefix);
  }

  /**
   * The devices of a two-process bench engine ({@code target}, {@code initiator}).
   *
   * @return the device specs; without {@code --devices} {@link DefaultSoftDevices}' choice for this
   *     host
   */
  public List<String> hostSpecs() {
    return devices == null ? hostChoice().specs() : specs(devices, DefaultSoftDevices.PREFIX);
  }

  /**
   * @return whether the devices are this host's default choice (no {@code --devices})
   */
  public boolean hostDefault() {
    return devices == null;
  }

  /**
   * @return the default choice for this host, made once per run
   */
  public DefaultSoftDevices.Choice hostChoice() {
    if (hostChoice == null) {
      hostChoice = DefaultSoftDevices.forThisHost();
    }
    return hostChoice;
  }

  private static List<String> specs(String devices, String prefix) {
    return devices.matches("\\d+")
        ? SoftDeviceSpec.loopback(prefix, Integer.parseInt(devices))
        : List.of(devices.split(","));
  }

  /**
   * @param specs device specs
   * @return the device names (the spec before {@code @})
   */
  public static List<String> names(List<String> specs) {
    return specs.stream().map(SoftDeviceSpec::nameOf).toList();
  }

  /**
   * @return owners per device
   */
  public int workers() {
    return engineOptions(List.of()).getWorkersPerContext();
  }

  /**
   * @return the engine slice size
   */
  public int sliceSize() {
    return engineOptions(List.of()).getSliceSize();
  }

  /**
   * @return the parsed {@code --inject} schedule, empty without the flag
   */
  public List<FaultStep> faults() {
    return inject == null ? List.of() : FaultStep.parseAll(inject);
  }

  /**
   * @return the metadata URI: the {@code --metadata} value or the engine's default
   */
  public String metadata() {
    return engineOptions(List.of()).getMetadataUri();
  }

  /**
   * @param specs the engine's devices ({@link #embeddedSpecs} or {@link #hostSpecs})
   * @return engine options for these flags, the engine's defaults where a flag is not given; the
   *     handshake service's host is left to the engine (the first soft device's address)
   */
  public EngineOptions engineOptions(List<String> specs) {
    EngineOptions o = new EngineOptions().setDevices(specs);
    if (transport != null) {
      o.setTransport(transport);
    }
    if (workers != null) {
      o.setWorkersPerContext(workers);
    }
    if (sliceSize != null) {
      o.setSliceSize(sliceSize);
    }
    if (maxOutstandingPerQp != null) {
      o.setMaxOutstandingPerQp(maxOutstandingPerQp);
    }
    if (metadata != null) {
      o.setMetadataUri(metadata);
    }
    if (handshakeTimeout != null) {
      o.setHandshakeDeadline(Duration.ofMillis((long) (handshakeTimeout * 1000)));
    }
    if (busyPollMicros != null) {
      o.setBusyPoll(Duration.of(busyPollMicros, ChronoUnit.MICROS));
    }
    if (nicBusyPollMicros != null) {
      o.setNicBusyPoll(Duration.of(nicBusyPollMicros, ChronoUnit.MICROS));
    }
    return o;
  }
}
