package io.vte.api;

import java.util.ArrayList;
import java.util.List;

/**
 * One soft-verbs device as the engine's {@code devices} option names it: {@code
 * name[@host[:port]]}, the host defaulting to 127.0.0.1 and the port to 0 (any free port).
 *
 * @param name the device name, e.g. {@code soft0}
 * @param host the address the device binds to
 * @param port the TCP port the device listens on, 0 for any free port
 */
public record SoftDeviceSpec(String name, String host, int port) {

  /** The host of a spec that names none. */
  public static final String DEFAULT_HOST = "127.0.0.1";

  /**
   * @param spec {@code name[@host[:port]]}
   * @return the parsed spec
   * @throws VteException INVALID_CONFIGURATION naming the malformed spec
   */
  public static SoftDeviceSpec parse(String spec) {
    int at = spec.indexOf('@');
    String name = at < 0 ? spec : spec.substring(0, at);
    String host = DEFAULT_HOST;
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
      throw new VteException(
          ErrorCode.INVALID_CONFIGURATION,
          "engine option 'devices' has a malformed soft device spec '"
              + spec
              + "': expected name[@host[:port]]");
    }
    return new SoftDeviceSpec(name, host, port);
  }

  /**
   * The one numbering of several soft devices on one host: {@code prefix0@127.0.0.1}, {@code
   * prefix1@127.0.0.2}, ... with ephemeral ports (the soft provider's default devices, {@code vte
   * bench --devices N}).
   *
   * @param prefix the device name prefix, e.g. {@code soft}
   * @param count how many devices, 1..254
   * @return the specs
   */
  public static List<String> loopback(String prefix, int count) {
    List<String> specs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      specs.add(prefix + i + "@127.0.0." + (i + 1));
    }
    return specs;
  }

  /**
   * @param spec a device spec or a plain device name (ibverbs)
   * @return the device name: the spec before {@code @}
   */
  public static String nameOf(String spec) {
    int at = spec.indexOf('@');
    return at < 0 ? spec : spec.substring(0, at);
  }
}
