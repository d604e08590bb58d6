package io.vte.engine.impl;

import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.VteException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Turns the engine's device list into the verbs provider's configuration. Soft verbs devices are specs
 * {@code name[@host[:port]]} (host defaults to 127.0.0.1, port to 0 = any free port); ibverbs devices
 * are plain device names opened as they are.
 */
public final class ProviderConfig {

  private ProviderConfig() {}

  /**
   * @param options engine options
   * @return the provider configuration map
   * @throws VteException INVALID_CONFIGURATION naming a malformed soft device spec
   */
  public static Map<String, Object> of(EngineOptions options) {
    if (!"soft".equals(options.getTransport())) {
      return Map.of();
    }
    List<Object> devices = new ArrayList<>();
    for (String spec : options.getDevices()) {
      devices.add(softDevice(spec));
    }
    return Map.of("devices", devices);
  }

  /**
   * @param options engine options
   * @return the device names to open, in device-index order
   */
  public static List<String> deviceNames(EngineOptions options) {
    List<String> names = new ArrayList<>();
    for (String spec : options.getDevices()) {
      int at = spec.indexOf('@');
      names.add(at < 0 ? spec : spec.substring(0, at));
    }
    return names;
  }

  private static Map<String, Object> softDevice(String spec) {
    int at = spec.indexOf('@');
    String name = at < 0 ? spec : spec.substring(0, at);
    String host = "127.0.0.1";
    int port = 0;
    if (at >= 0) {
      String hostPort = spec.substring(at + 1);
      int colon = hostPort.lastIndexOf(':');
      host = colon < 0 ? hostPort : hostPort.substring(0, colon);
      if (colon >= 0) {
        try {
          port = Integer.parseInt(hostPort.substring(colon + 1));
        } catch (NumberFormatException e) {
          port = -1;
        }
      }
    }
    if (name.isBlank() || host.isBlank() || port < 0 || port > 65535) {
      throw new VteException(ErrorCode.INVALID_CONFIGURATION, "engine option 'devices' has a malformed soft device spec '"
          + spec + "': expected name[@host[:port]]");
    }
    return Map.of("name", name, "host", host, "port", port);
  }
}
