package io.vte.verbs.soft;

import static io.vte.api.OptionFields.field;

import io.vertx.core.json.JsonObject;
import io.vte.api.DefaultSoftDevices;
import io.vte.api.EngineOptionFields;
import io.vte.api.OptionFields;
import io.vte.api.OptionFields.Field;
import io.vte.api.OptionKind;
import io.vte.api.SoftDeviceSpec;
import io.vte.api.VteException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Options of the soft verbs provider, declared once in {@link #FIELDS} (JSON names, defaults,
 * ranges) and validated by {@link SoftVerbsProviderFactory#create(Object)}.
 *
 * <p>JSON: {@code devices} (device specs {@code name[@host[:port]]}; default {@code soft0..soft3}
 * on {@code 127.0.0.1..127.0.0.4}, port 0), {@code mtu} (active MTU reported, default 4096), {@code
 * maxMessageBytes} (largest message, default 1 GiB), {@code socketBufferBytes} (socket buffer size,
 * default 0 = the OS's auto-tuning), {@code nicSpinMicros} (how long a NIC thread keeps
 * busy-polling its sockets after it served a peer's request of at most 16 KiB before it sleeps; the
 * engine option {@code nicBusyPollMicros}, whose default and range it takes), {@code
 * nicSpinThreads} (how many of the provider's NIC threads may poll at once; default 0: a budget all
 * providers of the JVM share, of half the processors, at least 1), {@code idleConnectionMs} (a QP's
 * connection that carried nothing for this long is closed; the engine option of the same name,
 * whose default and range it takes). Each device runs one NIC thread. Unknown keys are refused.
 */
public final class SoftVerbsConfig {

  /** What an option is called in messages. */
  static final String LABEL = "soft verbs option";

  /** The field {@code devices}. */
  public static final Field<SoftVerbsConfig, List<String>> DEVICES =
      field(
              "devices",
              OptionKind.STRING_LIST,
              SoftDeviceSpec.loopback(DefaultSoftDevices.PREFIX, 4),
              SoftVerbsConfig::getDevices,
              SoftVerbsConfig::setDevices)
          .check(
              SoftVerbsConfig::validDevices, "device specs name[@host[:port]] with distinct names");

  /** The field {@code nicSpinMicros}: the engine option {@code nicBusyPollMicros}. */
  public static final Field<SoftVerbsConfig, Duration> NIC_SPIN =
      EngineOptionFields.NIC_BUSY_POLL.as(
          "nicSpinMicros", SoftVerbsConfig::getNicSpin, SoftVerbsConfig::setNicSpin);

  /** The field {@code idleConnectionMs}: the engine option of the same name. */
  public static final Field<SoftVerbsConfig, Duration> IDLE_CONNECTION =
      EngineOptionFields.IDLE_CONNECTION.as(
          "idleConnectionMs",
          SoftVerbsConfig::getIdleConnection,
          SoftVerbsConfig::setIdleConnection);

  /** The fields, in JSON order. */
  public static final OptionFields<SoftVerbsConfig> FIELDS =
      OptionFields.of(
          DEVICES,
          field("mtu", OptionKind.INT, 4096, c -> c.mtu, SoftVerbsConfig::setMtu)
              .check(
                  m -> m >= 256 && m <= 4096 && Integer.bitCount(m) == 1,
                  "256..4096, a power of two"),
          field(
                  "maxMessageBytes",
                  OptionKind.BYTES,
                  1 << 30,
                  c -> c.maxMessageBytes,
                  SoftVerbsConfig::setMaxMessageBytes)
              .check(n -> n >= 1, "1..2147483647 bytes"),
          field(
                  "socketBufferBytes",
                  OptionKind.BYTES,
                  0,
                  c -> c.socketBufferBytes,
                  SoftVerbsConfig::setSocketBufferBytes)
              .check(n -> n >= 0, ">= 0 (0 = the OS's auto-tuning)"),
          NIC_SPIN,
          field(
                  "nicSpinThreads",
                  OptionKind.INT,
                  0,
                  c -> c.nicSpinThreads,
                  SoftVerbsConfig::setNicSpinThreads)
              .check(n -> n >= 0 && n <= 4096, "0..4096 (0 = the JVM's shared budget)"),
          IDLE_CONNECTION);

  private List<String> devices;
  private int mtu;
  private int maxMessageBytes;
  private int socketBufferBytes;
  private Duration nicSpin;
  private int nicSpinThreads;
  private Duration idleConnection;

  /** Creates options with the defaults. */
  public SoftVerbsConfig() {
    FIELDS.applyDefaults(this);
  }

  /**
   * Copies options.
   *
   * @param other the options to copy
   */
  public SoftVerbsConfig(SoftVerbsConfig other) {
    FIELDS.copy(other, this);
  }

  /**
   * @param json the options as JSON; absent keys keep their defaults
   * @return the options, validated
   * @throws VteException INVALID_CONFIGURATION naming an unknown key or a bad value
   */
  public static SoftVerbsConfig fromJson(JsonObject json) {
    SoftVerbsConfig c = new SoftVerbsConfig();
    FIELDS.read(json, c, LABEL, "");
    return c.validate();
  }

  /**
   * @return the options as JSON, readable by {@link #fromJson}
   */
  public JsonObject toJson() {
    return FIELDS.toJson(this);
  }

  /**
   * @return this
   * @throws VteException INVALID_CONFIGURATION naming the first bad field and its value
   */
  public SoftVerbsConfig validate() {
    FIELDS.validate(this, LABEL, "");
    return this;
  }

  private static boolean validDevices(List<String> specs) {
    if (specs == null) {
      return false;
    }
    Set<String> names = new HashSet<>();
    for (String spec : specs) {
      try {
        if (spec == null || !names.add(SoftDeviceSpec.parse(spec).name())) {
          return false;
        }
      } catch (VteException e) {
        return false;
      }
    }
    return true;
  }

  /**
   * @return the devices, their hosts resolved
   * @throws io.vte.verbs.VerbsException INVALID_ARGUMENT naming a device whose host does not
   *     resolve
   */
  public List<SoftDeviceConfig> devices() {
    List<SoftDeviceConfig> list = new ArrayList<>(devices.size());
    for (String spec : devices) {
      SoftDeviceSpec d = SoftDeviceSpec.parse(spec);
      list.add(SoftDeviceConfig.of(d.name(), d.host(), d.port()));
    }
    return list;
  }

  /**
   * @return the device specs {@code name[@host[:port]]}
   */
  public List<String> getDevices() {
    return devices;
  }

  /**
   * @param devices device specs {@code name[@host[:port]]}, names distinct
   * @return this
   */
  public SoftVerbsConfig setDevices(List<String> devices) {
    this.devices = devices == null ? null : new ArrayList<>(devices);
    return this;
  }

  /**
   * @return the active MTU every port reports
   */
  public int mtu() {
    return mtu;
  }

  /**
   * @param mtu active MTU, 256..4096, a power of two
   * @return this
   */
  public SoftVerbsConfig setMtu(int mtu) {
    this.mtu = mtu;
    return this;
  }

  /**
   * @return the largest message a WR or a peer may carry
   */
  public long maxMessageBytes() {
    return maxMessageBytes;
  }

  /**
   * @param maxMessageBytes the largest message, at least 1
   * @return this
   */
  public SoftVerbsConfig setMaxMessageBytes(int maxMessageBytes) {
    this.maxMessageBytes = maxMessageBytes;
    return this;
  }

  /**
   * @return SO_SNDBUF/SO_RCVBUF of every connection, 0 for the OS default
   */
  public int socketBufferBytes() {
    return socketBufferBytes;
  }

  /**
   * @param socketBufferBytes SO_SNDBUF/SO_RCVBUF, 0 for the OS default
   * @return this
   */
  public SoftVerbsConfig setSocketBufferBytes(int socketBufferBytes) {
    this.socketBufferBytes = socketBufferBytes;
    return this;
  }

  /**
   * @return how long a NIC thread busy-polls after it served a peer's request
   */
  public Duration getNicSpin() {
    return nicSpin;
  }

  /**
   * @return {@link #getNicSpin()} in whole microseconds
   */
  public int nicSpinMicros() {
    return (int) (nicSpin.toNanos() / 1000);
  }

  /**
   * @param nicSpin busy-poll window, 0..1 s, zero to always sleep in select
   * @return this
   */
  public SoftVerbsConfig setNicSpin(Duration nicSpin) {
    this.nicSpin = nicSpin;
    return this;
  }

  /**
   * @return NIC threads of the provider that may busy-poll at once, 0 for the JVM's shared budget
   */
  public int nicSpinThreads() {
    return nicSpinThreads;
  }

  /**
   * @param nicSpinThreads 1..4096, or 0 for the JVM's shared budget
   * @return this
   */
  public SoftVerbsConfig setNicSpinThreads(int nicSpinThreads) {
    this.nicSpinThreads = nicSpinThreads;
    return this;
  }

  /**
   * @return idle time after which a QP connection is closed, zero for never
   */
  public Duration getIdleConnection() {
    return idleConnection;
  }

  /**
   * @return {@link #getIdleConnection()} in milliseconds
   */
  public long idleConnectionMs() {
    return idleConnection.toMillis();
  }

  /**
   * @param idleConnection idle time after which a QP connection is closed, zero for never
   * @return this
   */
  public SoftVerbsConfig setIdleConnection(Duration idleConnection) {
    this.idleConnection = idleConnection;
    return this;
  }

  @Override
  public String toString() {
    return "SoftVerbsConfig" + toJson().encode();
  }
}
