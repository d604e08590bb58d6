package io.vte.engine;

import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.SoftDeviceSpec;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Turns the engine's device list (with its host defaults filled in, {@link
 * EngineOptions#withHostDefaults()}) into the verbs provider's configuration. Soft verbs devices
 * are {@link SoftDeviceSpec}s; ibverbs devices are plain device names opened as they are.
 */
public final class ProviderConfig {

  private ProviderConfig() {}

  /**
   * @param options engine options
   * @return the provider configuration map
   * @throws VteException INVALID_CONFIGURATION naming a malformed soft device spec or a device
   *     named twice
   */
  public static Map<String, Object> of(EngineOptions options) {
    requireDistinctNames(options);
    if (!"soft".equals(options.getTransport())) {
      return Map.of();
    }
    List<Object> devices = new ArrayList<>();
    for (String spec : options.getDevices()) {
      devices.add(softDevice(spec));
    }
    return Map.of("devices", devices, "idleConnectionMs", options.getIdleConnection().toMillis());
  }

  /**
   * @param options engine options
   * @return the device names to open, in device-index order
   */
  public static List<String> deviceNames(EngineOptions options) {
    List<String> names = new ArrayList<>();
    for (String spec : options.getDevices()) {
      names.add(SoftDeviceSpec.nameOf(spec));
    }
    return names;
  }

  private static void requireDistinctNames(EngineOptions options) {
    Set<String> seen = new HashSet<>();
    for (String spec : options.getDevices()) {
      String name = SoftDeviceSpec.nameOf(spec);
      if (!seen.add(name)) {
        throw new VteException(
            ErrorCode.INVALID_CONFIGURATION,
            "engine option 'devices' names device '" + name + "' twice: " + options.getDevices());
      }
    }
  }

  private static Map<String, Object> softDevice(String spec) {
    SoftDeviceSpec d = SoftDeviceSpec.parse(spec);
    return Map.of("name", d.name(), "host", d.host(), "port", d.port());
  }
}
