package io.vte.engine;

import io.vertx.core.json.JsonObject;
import io.vte.api.EngineOptions;
import io.vte.api.ErrorCode;
import io.vte.api.SoftDeviceSpec;
import io.vte.api.VteException;
import io.vte.verbs.soft.SoftVerbsConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Turns the engine's device lists (with their host defaults filled in, {@link
 * EngineOptions#withHostDefaults()}) into the verbs providers' options sections, which each
 * provider reads through its own field table. The {@code devices} belong to the provider {@code
 * transport} names; an ibverbs engine's {@code fallbackDevices} to a second provider, soft verbs,
 * and come after them in device-index order. Soft verbs devices are {@link SoftDeviceSpec}s;
 * ibverbs devices are plain device names opened as they are.
 */
public final class ProviderConfig {

  private ProviderConfig() {}

  /** The provider of the fallback devices. */
  public static final String FALLBACK_TRANSPORT = "soft";

  /**
   * The ibverbs provider's option naming the address whose interface's GIDs its automatic GID
   * choice prefers (the engine cannot name that provider's options class).
   */
  static final String PREFERRED_ADDRESS = "preferredAddress";

  /**
   * @param options engine options
   * @return the options section of the provider {@code transport} names (ibverbs: the engine's
   *     {@link EngineOptions#getIbverbs()}, and its {@code rpcHost} as the address whose
   *     interface's GIDs the automatic GID choice prefers)
   * @throws VteException INVALID_CONFIGURATION naming a malformed soft device spec or a device
   *     named twice
   */
  public static JsonObject of(EngineOptions options) {
    requireDistinctNames(options);
    if (!"soft".equals(options.getTransport())) {
      JsonObject section =
          options.getIbverbs() == null ? new JsonObject() : options.getIbverbs().toJson();
      if (options.getRpcHost() != null) {
        section.put(PREFERRED_ADDRESS, options.getRpcHost());
      }
      return section;
    }
    return soft(options.getDevices(), options);
  }

  /**
   * @param options engine options
   * @return the soft verbs options section of the fallback devices, empty when there are none
   * @throws VteException INVALID_CONFIGURATION naming a malformed soft device spec
   */
  public static JsonObject fallbackOf(EngineOptions options) {
    return options.getFallbackDevices().isEmpty()
        ? new JsonObject()
        : soft(options.getFallbackDevices(), options);
  }

  /**
   * @return the soft provider's options: these devices, and the engine options it takes
   */
  private static JsonObject soft(List<String> specs, EngineOptions options) {
    specs.forEach(SoftDeviceSpec::parse);
    return new SoftVerbsConfig()
        .setDevices(specs)
        .setIdleConnection(options.getIdleConnection())
        .setNicSpin(options.getNicBusyPoll())
        .toJson();
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
}
