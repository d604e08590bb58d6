package io.vte.verbs.soft;

import io.vte.verbs.VerbsError;
import io.vte.verbs.VerbsException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Settings of the soft verbs provider, read from the factory's configuration map.
 *
 * <p>Keys: {@code devices} (list of maps {@code {name, host, port}}; default {@code soft0..soft3}
 * on {@code 127.0.0.1..127.0.0.4}, port 0), {@code mtu} (active MTU reported, default 4096), {@code
 * maxMessageBytes} (largest message, default 1 GiB), {@code socketBufferBytes} (socket buffer size,
 * default 0 = the OS's auto-tuning), {@code nicSpinMicros} (how long a NIC thread keeps
 * busy-polling its sockets after it served a peer's request of at most 16 KiB before it sleeps,
 * trading CPU for latency; default {@link #DEFAULT_NIC_SPIN_MICROS}, the engine's {@code
 * nicBusyPollMicros} default too, which an engine passes), {@code nicSpinThreads} (how many of the
 * provider's NIC threads may poll at once; default 0: a budget all providers of the JVM share, of
 * half the processors, at least 1), {@code idleConnectionMs} (a QP's connection that carried
 * nothing for this long is closed, freeing its socket and buffers; the next work request opens a
 * new one; default 60000, 0 = never). Each device runs one NIC thread. Unknown keys are rejected.
 *
 * @param devices the devices
 * @param mtu active MTU reported by every port
 * @param maxMessageBytes largest message a WR or a peer may carry
 * @param socketBufferBytes SO_SNDBUF/SO_RCVBUF of every connection, 0 for the OS default
 * @param nicSpinMicros microseconds a NIC thread busy-polls after it served a peer's request, 0 to
 *     always sleep in select
 * @param nicSpinThreads NIC threads of the provider that may busy-poll at once, 1..4096, or 0 for
 *     the JVM's shared budget
 * @param idleConnectionMs milliseconds after which an idle QP connection is closed, 0 for never
 */
public record SoftVerbsConfig(
    List<SoftDeviceConfig> devices,
    int mtu,
    long maxMessageBytes,
    int socketBufferBytes,
    int nicSpinMicros,
    int nicSpinThreads,
    long idleConnectionMs) {

  /**
   * Default of {@code nicSpinMicros}: 50 us, the default of the engine option {@code
   * nicBusyPollMicros} that an engine passes here (a test in the engine keeps the two equal, as the
   * API cannot name a provider).
   */
  public static final int DEFAULT_NIC_SPIN_MICROS = 50;

  /** Default of {@code idleConnectionMs}. */
  public static final long DEFAULT_IDLE_CONNECTION_MS = 60_000;

  private static final Set<String> KEYS =
      Set.of(
          "devices",
          "mtu",
          "maxMessageBytes",
          "socketBufferBytes",
          "nicSpinMicros",
          "nicSpinThreads",
          "idleConnectionMs");

  /** Validates and copies. */
  public SoftVerbsConfig {
    devices = List.copyOf(devices);
    Set<String> names = new HashSet<>();
    for (SoftDeviceConfig d : devices) {
      if (!names.add(d.name())) {
        throw new VerbsException(
            VerbsError.INVALID_ARGUMENT, "duplicate soft device name '" + d.name() + "'");
      }
    }
    if (mtu < 256 || mtu > 4096 || Integer.bitCount(mtu) != 1) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "mtu must be 256..4096, a power of two, got " + mtu);
    }
    if (maxMessageBytes < 1 || maxMessageBytes > Integer.MAX_VALUE) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "maxMessageBytes must be 1..2^31-1, got " + maxMessageBytes);
    }
    if (nicSpinMicros < 0 || nicSpinMicros > 1_000_000) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "nicSpinMicros must be 0..1000000, got " + nicSpinMicros);
    }
    if (nicSpinThreads < 0 || nicSpinThreads > 4096) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "nicSpinThreads must be 0..4096 (0 = the JVM's shared budget), got " + nicSpinThreads);
    }
    if (idleConnectionMs < 0 || idleConnectionMs > 86_400_000L) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "idleConnectionMs must be 0..86400000 (0 = never), got " + idleConnectionMs);
    }
    if (socketBufferBytes < 0) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "socketBufferBytes must be >= 0, got " + socketBufferBytes);
    }
  }

  /**
   * @return the default devices soft0..soft3 on 127.0.0.1..127.0.0.4 with ephemeral ports
   */
  public static List<SoftDeviceConfig> defaultDevices() {
    List<SoftDeviceConfig> list = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      list.add(SoftDeviceConfig.of("soft" + i, "127.0.0." + (i + 1), 0));
    }
    return list;
  }

  /**
   * Reads a configuration map.
   *
   * @param config the map (see the class comment)
   * @return the settings
   * @throws VerbsException {@link VerbsError#INVALID_ARGUMENT} naming a bad key or value
   */
  public static SoftVerbsConfig from(Map<String, Object> config) {
    for (String k : config.keySet()) {
      if (!KEYS.contains(k)) {
        throw new VerbsException(
            VerbsError.INVALID_ARGUMENT, "unknown soft verbs setting '" + k + "'; known: " + KEYS);
      }
    }
    List<SoftDeviceConfig> devices =
        config.containsKey("devices") ? devices(config.get("devices")) : defaultDevices();
    return new SoftVerbsConfig(
        devices,
        (int) number(config, "mtu", 4096),
        number(config, "maxMessageBytes", 1L << 30),
        (int) number(config, "socketBufferBytes", 0),
        (int) number(config, "nicSpinMicros", DEFAULT_NIC_SPIN_MICROS),
        (int) number(config, "nicSpinThreads", 0),
        number(config, "idleConnectionMs", DEFAULT_IDLE_CONNECTION_MS));
  }

  private static List<SoftDeviceConfig> devices(Object value) {
    if (!(value instanceof List)) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT,
          "'devices' must be a list of {name, host, port}, got " + value);
    }
    List<SoftDeviceConfig> list = new ArrayList<>();
    for (Object o : (List<?>) value) {
      if (!(o instanceof Map)) {
        throw new VerbsException(
            VerbsError.INVALID_ARGUMENT, "a device must be a map {name, host, port}, got " + o);
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> m = (Map<String, Object>) o;
      Object name = m.get("name");
      Object host = m.getOrDefault("host", "127.0.0.1");
      if (!(name instanceof String) || !(host instanceof String)) {
        throw new VerbsException(
            VerbsError.INVALID_ARGUMENT, "device name and host must be strings: " + m);
      }
      list.add(SoftDeviceConfig.of((String) name, (String) host, (int) number(m, "port", 0)));
    }
    return list;
  }

  private static long number(Map<String, Object> map, String key, long defaultValue) {
    Object v = map.get(key);
    if (v == null) {
      return defaultValue;
    }
    if (v instanceof Number) {
      return ((Number) v).longValue();
    }
    try {
      return Long.parseLong(v.toString().trim());
    } catch (NumberFormatException e) {
      throw new VerbsException(
          VerbsError.INVALID_ARGUMENT, "setting '" + key + "' must be a number, got '" + v + "'");
    }
  }
}
