package io.vte.engine;

import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.SoftDeviceSpec;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the engine's device lists (with their host defaults filled in, {@link
 * EngineOptions#withHostDefaults()}) into the verbs providers' configurations. The {@code devices}
 * belong to the provider {@code transport} names; an ibverbs engine's {@code fallbackDevices} to a
 * second provider, soft verbs, and come after them in device-index order. Soft verbs devices are
 * {@link SoftDeviceSpec}s; ibverbs devices are plain device names opened as they are.
 */
public final class ProviderConfig {

  private ProviderConfig() {}

  /** The provider of the fallback devices. */
  public static final String FALLBACK_TRANSPORT = "soft";

  /**
   * @param options engine options
   * @return the configuration map of the provider {@code transport} names (ibverbs: the settings of
   *     {@link EngineOptions#getIbverbs()}, and the engine's {@code rpcHost} as the address whose
   *     interface's GIDs the automatic GID choice prefers)
   * @throws VteException INVALID_CONFIGURATION naming a malformed soft device spec or a device
   *     named twice
   */
  public static Map<String, Object> of(EngineOptions options) {
    requireDistinctNames(options);
    if (!"soft".equals(options.getTransport())) {
      Map<String, Object> settings =
          new LinkedHashMap<>(
              options.getIbverbs() == null ? Map.of() : options.getIbverbs().providerSettings());
      if (options.getRpcHost() != null) {
        settings.put("preferredAddress", options.getRpcHost());
      }
      return settings;
    }
    return soft(options.getDevices(), options);
  }

  /**
   * @param options engine options
   * @return the soft verbs configuration of the fallback devices, empty when there are none
   * @throws VteException INVALID_CONFIGURATION naming a malformed soft device spec
   */
  public static Map<String, Object> fallbackOf(EngineOptions options) {
    return options.getFallbackDevices().isEmpty()
        ? Map.of()
        : soft(options.getFallbackDevices(), options);
  }

  private static Map<String, Object> soft(List<String> specs, EngineOptions options) {
    List<Object> devices = new ArrayList<>();
    for (String spec : specs) {
      devices.add(softDevice(spec));
    }
    return Map.of(
        "devices",
        devices,
        "idleConnectionMs",
        options.getIdleConnection().toMillis(),
        "nicSpinMicros",
        options.getNicBusyPoll().toNanos() / 1000);
  }

  /**
   * @param options engine options
   * @return the device names to open, in device-index order: {@code devices}, then {@code
   *     fallbackDevices}
   */
  public static List<String> deviceNames(EngineOptions options) {
    List<String> names = new ArrayList<>();
    for (String spec : allDevices(options)) {
      names.add(SoftDeviceSpec.nameOf(spec));
    }
    return names;
  }

  /**
   * @param options engine options
   * @return each device's provider name, in device-index order
   */
  public static List<String> transports(EngineOptions options) {
    List<String> transports = new ArrayList<>();
    options.getDevices().forEach(d -> transports.add(options.getTransport()));
    options.getFallbackDevices().forEach(d -> transports.add(FALLBACK_TRANSPORT));
    return transports;
  }

  private static List<String> allDevices(EngineOptions options) {
    List<String> all = new ArrayList<>(options.getDevices());
    all.addAll(options.getFallbackDevices());
    return all;
  }

  private static void requireDistinctNames(EngineOptions options) {
    Set<String> seen = new HashSet<>();
    for (String spec : allDevices(options)) {
      String name = SoftDeviceSpec.nameOf(spec);
      if (!seen.add(name)) {
        throw new VteException(
            ErrorCode.INVALID_CONFIGURATION,
            "engine options 'devices' and 'fallbackDevices' name device '"
                + name
                + "' twice: "
                + allDevices(options));
      }
    }
  }

  private static Map<String, Object> softDevice(String spec) {
    SoftDeviceSpec d = SoftDeviceSpec.parse(spec);
    return Map.of("name", d.name(), "host", d.host(), "port", d.port());
  }
}
